/**
 * text_to_chart: data (or text that holds it) → an SVG chart saved in the workspace. The result's
 * `workspace_image` names the file, which is how the chat knows to show it.
 */
import * as v from 'valibot';
import { defineTool, ToolError, type ToolDefinition } from '../../tools/registry';
import { isWorkspaceError, type Workspace } from '../../workspace';
import { skillFacts } from '../facts';
import type { SkillRecord } from '../types';
import { CHART_TEXT_EXAMPLE, CHART_TYPES, ChartDataError, checkChartData, MAX_CHART_POINTS, MAX_CHART_SERIES, parseChartText, type ChartData } from './chart-data';
import { CHART_HEIGHT, CHART_WIDTH, renderChartSvg } from './chart-svg';
import { skillDescription } from './common';

export const CHART_DIR = 'charts';
const TEXT_MAX_CHARS = 200_000;

const label = (what: string, max = 200) => v.optional(v.pipe(v.string('must be a string'), v.trim(), v.maxLength(max, `must be at most ${max} characters`), v.description(what)));

const input = v.strictObject({
  type: v.pipe(v.picklist(CHART_TYPES, `must be one of ${CHART_TYPES.join(', ')}`), v.description('Chart type')),
  title: label('Chart title'),
  data: v.optional(
    v.pipe(
      v.strictObject({
        labels: v.pipe(
          v.array(v.string('must be a string'), 'must be an array of strings'),
          v.maxLength(MAX_CHART_POINTS, `must have at most ${MAX_CHART_POINTS} labels`),
          v.description('One label per point (x axis categories, or pie slices)'),
        ),
        series: v.pipe(
          v.array(
            v.strictObject({
              name: v.optional(v.pipe(v.string('must be a string'), v.maxLength(200, 'must be at most 200 characters')), ''),
              values: v.pipe(v.array(v.pipe(v.number('must be a number'), v.finite('must be a finite number')), 'must be an array of numbers'), v.maxLength(MAX_CHART_POINTS, `must have at most ${MAX_CHART_POINTS} values`)),
            }),
            'must be an array of {name, values}',
          ),
          v.maxLength(MAX_CHART_SERIES, `must have at most ${MAX_CHART_SERIES} series`),
          v.description('One or more series, each with one value per label (a pie chart takes exactly one)'),
        ),
      }),
      v.description('The data; when absent, text is parsed instead'),
    ),
  ),
  text: v.optional(
    v.pipe(
      v.string('must be a string'),
      v.maxLength(TEXT_MAX_CHARS, `must be at most ${TEXT_MAX_CHARS} characters`),
      v.description('Data as text, used when data is absent: "Q1: 10, Q2: 15", "label value" lines, or CSV/TSV with an optional header row'),
    ),
  ),
  filename: label('File name for the chart in the workspace charts folder (".svg" is added)', 100),
  x_label: label('X axis title'),
  y_label: label('Y axis title'),
});

export function textToChartTool(skill: SkillRecord): ToolDefinition<typeof input> {
  return defineTool({
    name: skill.name,
    ...skillFacts(skill, 'text_to_chart'),
    description: skillDescription(
      skill,
      'Draw a chart (bar, line or pie) from data or from text.',
      `Give type and either data {labels, series: [{name, values}]} or text (e.g. "Q1: 10, Q2: 15" or CSV). The chart is drawn as an SVG image, saved in the workspace under ${CHART_DIR}/, and shown to the user in the chat; returns its path.`,
    ),
    maxInputChars: TEXT_MAX_CHARS + 100_000,
    input,
    async run(args, ctx) {
      let data: ChartData;
      if (args.data) data = args.data;
      else if (args.text?.trim()) data = parseChartText(args.text);
      else throw new ChartDataError(`Give the chart's data: either data {labels, series} or text. ${CHART_TEXT_EXAMPLE}`);
      data = checkChartData(data, args.type);
      const svg = renderChartSvg({
        type: args.type,
        data,
        ...(args.title ? { title: args.title } : {}),
        ...(args.x_label ? { xLabel: args.x_label } : {}),
        ...(args.y_label ? { yLabel: args.y_label } : {}),
      });
      let path: string;
      try {
        const workspace = await ctx.env.workspace();
        path = args.filename ? `${CHART_DIR}/${chartFileName(args.filename)}.svg` : await freePath(workspace, chartFileName(args.title || `${args.type}-chart`));
        path = (await workspace.write(path, svg, { decodeDataUrl: false })).path;
      } catch (e) {
        if (isWorkspaceError(e)) throw new ToolError(`The chart was drawn but could not be saved: ${e.message}`);
        throw e;
      }
      return {
        path,
        type: args.type,
        width: CHART_WIDTH,
        height: CHART_HEIGHT,
        series: data.series.map((s) => s.name),
        points: data.labels.length,
        workspace_image: path,
      };
    },
  });
}

/** A file name from a title or the model's filename: letters, digits, "-", "_" and "." only. */
export function chartFileName(raw: string): string {
  const name = raw
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/\.svg$/i, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .replace(/-{2,}/g, '-')
    .slice(0, 80)
    .replace(/[-.]+$/, '');
  return name || 'chart';
}

/** A name derived from a title must not replace an earlier chart: "-2", "-3" … are tried. */
async function freePath(workspace: Workspace, base: string): Promise<string> {
  for (let i = 1; i <= 100; i++) {
    const path = `${CHART_DIR}/${base}${i === 1 ? '' : `-${i}`}.svg`;
    try {
      await workspace.stat(path);
    } catch (e) {
      if (isWorkspaceError(e) && e.code === 'not_found') return path;
      throw e;
    }
  }
  return `${CHART_DIR}/${base}-${Date.now()}.svg`;
}
