import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { ChartDataError, checkChartData, MAX_CHART_POINTS, parseChartText, parseNumber, type ChartData } from '../../lib/skills/builtin/chart-data';
import { chartColor, escapeXml, formatTick, niceTicks, renderChartSvg, type ChartSpec } from '../../lib/skills/builtin/chart-svg';

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['g', 'rect', 'path', 'text', 'circle', 'line'].includes(name) });

/** Parses the SVG (failing on any well-formedness error) and returns the root element. */
function parse(svg: string): any {
  const valid = XMLValidator.validate(svg);
  if (valid !== true) throw new Error(`not well-formed: ${JSON.stringify(valid.err)}`);
  return parser.parse(svg).svg;
}

/** Every element named `name` anywhere below `node`. */
function all(node: any, name: string): any[] {
  const found: any[] = [];
  const walk = (n: any) => {
    if (!n || typeof n !== 'object') return;
    for (const [k, v] of Object.entries(n)) {
      const items = Array.isArray(v) ? v : [v];
      if (k === name) found.push(...items);
      items.forEach(walk);
    }
  };
  walk(node);
  return found;
}

const textOf = (t: any): string => (typeof t === 'object' ? String(t['#text'] ?? '') : String(t));
const checked = (data: ChartData, type: ChartSpec['type']) => checkChartData(data, type);
const render = (spec: Omit<ChartSpec, 'data'> & { data: ChartData }) => renderChartSvg({ ...spec, data: checked(spec.data, spec.type) });

describe('parseNumber', () => {
  it.each<[string, number | undefined]>([
    ['10', 10],
    ['-3.5', -3.5],
    ['1,234.5', 1234.5],
    ['1.234,5', 1234.5],
    ['1 234', 1234],
    ['12%', 12],
    ['$1,200', 1200],
    ['€ 5', 5],
    ['−7', -7],
    ['2.5e3', 2500],
    ['3,5', 3.5],
    ['1.234.567', 1234567],
    ['"42"', 42],
    ['.5', 0.5],
    ['abc', undefined],
    ['', undefined],
    ['12abc', undefined],
    ['1e999', undefined],
  ])('%s → %s', (text, expected) => {
    expect(parseNumber(text)).toBe(expected);
  });
});

describe('parseChartText', () => {
  it('reads "label: value" pairs on one line', () => {
    expect(parseChartText('Q1: 10, Q2: 15, Q3: 12.5')).toEqual({ labels: ['Q1', 'Q2', 'Q3'], series: [{ name: 'Value', values: [10, 15, 12.5] }] });
  });

  it('keeps thousands separators inside pair values', () => {
    expect(parseChartText('Berlin: 3,645,000; Hamburg = 1,841,000')).toEqual({ labels: ['Berlin', 'Hamburg'], series: [{ name: 'Value', values: [3645000, 1841000] }] });
  });

  it('reads a bulleted list of pairs', () => {
    expect(parseChartText('- Apples: 10\n- Pears: 7\n\n- Plums: 3')).toEqual({ labels: ['Apples', 'Pears', 'Plums'], series: [{ name: 'Value', values: [10, 7, 3] }] });
  });

  it('reads CSV with a header naming several series', () => {
    expect(parseChartText('quarter,sales,costs\nQ1,10,7\nQ2,15,9\r\nQ3,"1,200",11')).toEqual({
      labels: ['Q1', 'Q2', 'Q3'],
      series: [
        { name: 'sales', values: [10, 15, 1200] },
        { name: 'costs', values: [7, 9, 11] },
      ],
    });
  });

  it('reads TSV without a header', () => {
    expect(parseChartText('Mon\t3\t4\nTue\t5\t6')).toEqual({
      labels: ['Mon', 'Tue'],
      series: [
        { name: 'Series 1', values: [3, 5] },
        { name: 'Series 2', values: [4, 6] },
      ],
    });
  });

  it('reads a Markdown table', () => {
    const md = '| Year | Users |\n|------|------:|\n| 2022 | 1,000 |\n| 2023 | 2,500 |';
    expect(parseChartText(md)).toEqual({ labels: ['2022', '2023'], series: [{ name: 'Users', values: [1000, 2500] }] });
  });

  it('reads semicolon CSV with decimal commas', () => {
    expect(parseChartText('Monat;Umsatz\nJan;1,5\nFeb;2,25')).toEqual({ labels: ['Jan', 'Feb'], series: [{ name: 'Umsatz', values: [1.5, 2.25] }] });
  });

  it('reads "label value" lines, labels with spaces', () => {
    expect(parseChartText('New York 8.3\nLos Angeles 3.9')).toEqual({ labels: ['New York', 'Los Angeles'], series: [{ name: 'Value', values: [8.3, 3.9] }] });
  });

  it('numbers bare values', () => {
    expect(parseChartText('4, 8, 15, 16')).toEqual({ labels: ['1', '2', '3', '4'], series: [{ name: 'Value', values: [4, 8, 15, 16] }] });
    expect(parseChartText('1\n2\n3').series[0]!.values).toEqual([1, 2, 3]);
  });

  it('refuses prose, with an example of what it reads', () => {
    expect(() => parseChartText('sales went up a lot this year')).toThrow(ChartDataError);
    expect(() => parseChartText('sales went up a lot this year')).toThrow(/Q1: 10, Q2: 15/);
    expect(() => parseChartText('   \n  ')).toThrow(/empty/);
  });

  it('names the row and column of a cell that is not a number', () => {
    expect(() => parseChartText('city,pop\nRome,2.8\nParis,n/a')).toThrow(/Paris.*column "pop".*"n\/a"/);
  });

  it(`refuses more than ${MAX_CHART_POINTS} points`, () => {
    const text = Array.from({ length: MAX_CHART_POINTS + 1 }, (_, i) => `p${i}: ${i}`).join('\n');
    expect(() => parseChartText(text)).toThrow(/at most 1000/);
  });
});

describe('checkChartData', () => {
  const one = (values: number[], labels = values.map((_, i) => `L${i}`)): ChartData => ({ labels, series: [{ name: 's', values }] });

  it.each<[string, ChartData, ChartSpec['type'], RegExp]>([
    ['no points', one([]), 'bar', /no points/],
    ['no series', { labels: ['a'], series: [] }, 'bar', /no series/],
    ['fewer values than labels', one([1, 2], ['a', 'b', 'c']), 'bar', /"s" has 2 values but there are 3 labels/],
    ['NaN', one([1, Number.NaN]), 'line', /value 2 \(label "L1"\) is not a finite number/],
    ['Infinity', one([Number.POSITIVE_INFINITY]), 'bar', /not a finite number/],
    ['a huge value', one([1e300]), 'bar', /between -1e15 and 1e15/],
    ['1001 points', one(Array.from({ length: 1001 }, () => 1)), 'line', /at most 1000/],
    ['a negative pie slice', one([3, -1]), 'pie', /negative.*"L1" is -1/],
    ['a pie of zeros', one([0, 0]), 'pie', /sum is positive/],
    ['a pie of two series', { labels: ['a'], series: [{ name: 'x', values: [1] }, { name: 'y', values: [2] }] }, 'pie', /one series.*"x", "y"/],
  ])('refuses %s', (_name, data, type, message) => {
    expect(() => checkChartData(data, type)).toThrow(message);
  });

  it('names unnamed series and trims labels', () => {
    expect(checkChartData({ labels: [' a '], series: [{ name: '', values: [1] }] }, 'bar')).toEqual({ labels: ['a'], series: [{ name: 'Series 1', values: [1] }] });
  });
});

describe('niceTicks', () => {
  it.each<[number, number, number[]]>([
    [0, 15, [0, 5, 10, 15]],
    [0, 97, [0, 20, 40, 60, 80, 100]],
    [-12, 30, [-20, -10, 0, 10, 20, 30]],
    [0.1, 0.9, [0, 0.2, 0.4, 0.6, 0.8, 1]],
    [5, 5, [4.4, 4.6, 4.8, 5, 5.2, 5.4, 5.6]],
    [0, 0, [0, 0.2, 0.4, 0.6, 0.8, 1]],
  ])('%s..%s → %j', (min, max, ticks) => {
    expect(niceTicks(min, max).ticks).toEqual(ticks);
  });

  it('covers the data and has evenly spaced ticks', () => {
    for (const [lo, hi] of [[3.3, 1234.5], [-0.004, 0.017], [1e12, 3.7e12], [-5000, -20]] as const) {
      const t = niceTicks(lo, hi);
      expect(t.min).toBeLessThanOrEqual(lo);
      expect(t.max).toBeGreaterThanOrEqual(hi);
      expect(t.ticks.length).toBeGreaterThanOrEqual(3);
      expect(t.ticks.length).toBeLessThanOrEqual(12);
      for (let i = 1; i < t.ticks.length; i++) expect(t.ticks[i]! - t.ticks[i - 1]!).toBeCloseTo(t.step, 6);
    }
  });

  it('labels ticks with the decimals the step needs', () => {
    expect(formatTick(2.5, 2.5)).toBe('2.5');
    expect(formatTick(5, 2.5)).toBe('5.0');
    expect(formatTick(0.25, 0.05)).toBe('0.25');
    expect(formatTick(1000, 200)).toBe('1,000');
    expect(formatTick(2_000_000, 500_000)).toBe('2M');
  });
});

describe('renderChartSvg', () => {
  const quarters: ChartData = { labels: ['Q1', 'Q2', 'Q3', 'Q4'], series: [{ name: 'Sales', values: [10, 20, 5, 40] }] };

  it('draws a bar chart as well-formed, accessible SVG of 800×500', () => {
    const svg = parse(render({ type: 'bar', title: 'Sales by quarter', data: quarters, xLabel: 'Quarter', yLabel: 'EUR' }));
    expect(svg.xmlns).toBe('http://www.w3.org/2000/svg');
    expect([svg.width, svg.height, svg.viewBox]).toEqual(['800', '500', '0 0 800 500']);
    expect(svg.role).toBe('img');
    expect(textOf(svg.title)).toBe('Sales by quarter');
    expect(textOf(svg.desc)).toMatch(/Bar chart of 1 series \(Sales\) over 4 points \(Q1 … Q4\); values from 5 to 40/);
    const texts = all(svg, 'text').map(textOf);
    expect(texts).toEqual(expect.arrayContaining(['Sales by quarter', 'Q1', 'Q4', 'Quarter', 'EUR', '0', '40']));
  });

  it('makes bar heights proportional to the values, from a zero baseline', () => {
    const svg = parse(render({ type: 'bar', data: quarters }));
    const bars = all(svg, 'rect').filter((r) => r.class === 'bar');
    expect(bars).toHaveLength(4);
    const heights = bars.map((b) => Number(b.height));
    const unit = heights[0]! / 10;
    heights.forEach((h, i) => expect(h).toBeCloseTo(quarters.series[0]!.values[i]! * unit, 1));
    const bottoms = bars.map((b) => Number(b.y) + Number(b.height));
    bottoms.forEach((b) => expect(b).toBeCloseTo(bottoms[0]!, 1));
    // Left to right in label order.
    const xs = bars.map((b) => Number(b.x));
    expect([...xs].sort((a, b) => a - b)).toEqual(xs);
  });

  it('draws negative bars below the zero line', () => {
    const svg = parse(render({ type: 'bar', data: { labels: ['a', 'b'], series: [{ name: 'x', values: [10, -10] }] } }));
    const [up, down] = all(svg, 'rect').filter((r) => r.class === 'bar');
    expect(Number(up.height)).toBeCloseTo(Number(down.height), 1);
    expect(Number(up.y) + Number(up.height)).toBeCloseTo(Number(down.y), 1);
  });

  it('groups several series side by side with a legend', () => {
    const data: ChartData = { labels: ['2023', '2024'], series: [{ name: 'Apples', values: [3, 4] }, { name: 'Pears', values: [5, 6] }] };
    const svg = parse(render({ type: 'bar', data }));
    const bars = all(svg, 'rect').filter((r) => r.class === 'bar');
    expect(bars).toHaveLength(4);
    const legend = all(svg, 'g').filter((g) => g.class === 'legend-item');
    expect(legend.map((g) => textOf(g.text[0]))).toEqual(['Apples', 'Pears']);
    expect(legend.map((g) => g.rect[0].fill)).toEqual([chartColor(0), chartColor(1)]);
  });

  it('draws a line chart: one path per series through every point, with markers', () => {
    const data: ChartData = { labels: ['a', 'b', 'c'], series: [{ name: 'up', values: [1, 2, 3] }, { name: 'down', values: [3, 2, 1] }] };
    const svg = parse(render({ type: 'line', data }));
    const paths = all(svg, 'path').filter((p) => p.class === 'line');
    expect(paths).toHaveLength(2);
    expect(paths[0].d.match(/[ML]/g)).toHaveLength(3);
    expect(all(svg, 'circle').filter((c) => c.class === 'point')).toHaveLength(6);
    const ys = paths[0].d.split(/[ML]/).filter(Boolean).map((p: string) => Number(p.trim().split(' ')[1]));
    expect(ys[0]).toBeGreaterThan(ys[1]); // higher values are drawn higher up
    expect(ys[0]! - ys[1]!).toBeCloseTo(ys[1]! - ys[2]!, 1);
  });

  it('draws a pie with percentages in the legend and the slices', () => {
    const data: ChartData = { labels: ['Rent', 'Food', 'Fun', 'Zero'], series: [{ name: 'Budget', values: [50, 30, 20, 0] }] };
    const svg = parse(render({ type: 'pie', title: 'Budget', data }));
    const slices = all(svg, 'path').filter((p) => p.class === 'slice');
    expect(slices).toHaveLength(3); // a zero slice is not drawn, but is listed
    expect(slices.map((s) => Number(s['data-share']))).toEqual([50, 30, 20]);
    // The 50 % slice is half the circle: it ends straight below the centre where it started above.
    expect(slices[0].d).toMatch(/A[\d.]+ [\d.]+ 0 0 1/);
    const legend = all(svg, 'g').filter((g) => g.class === 'legend-item').map((g) => textOf(g.text[0]));
    expect(legend).toEqual(['Rent — 50.0%', 'Food — 30.0%', 'Fun — 20.0%', 'Zero — 0.0%']);
    const onSlices = all(svg, 'text').filter((t) => t.class === 'slice-label').map(textOf);
    expect(onSlices).toEqual(['50.0%', '30.0%', '20.0%']);
    expect(textOf(svg.desc)).toMatch(/Pie chart of 4 slices totalling 100: Rent 50.0%/);
  });

  it('draws a single-slice pie as a full circle', () => {
    const svg = parse(render({ type: 'pie', data: { labels: ['All'], series: [{ name: 's', values: [7] }] } }));
    expect(all(svg, 'circle').filter((c) => c.class === 'slice')).toHaveLength(1);
  });

  it('escapes <, & and > in labels, titles and names, and drops characters XML forbids', () => {
    const data: ChartData = { labels: ['<script>alert(1)</script>', 'R&D', 'a > b "q"'], series: [{ name: 'Tom & Jerry <3', values: [1, 2, 3] }, { name: 'x', values: [1, 1, 1] }] };
    const raw = render({ type: 'bar', title: 'Profit & <Loss>\u0001', data, xLabel: "it's", yLabel: '<y>' });
    expect(raw).not.toContain('<script>');
    expect(raw).not.toContain('\u0001');
    const svg = parse(raw);
    expect(all(svg, 'script')).toHaveLength(0);
    const texts = all(svg, 'text').map(textOf);
    // The parser decodes the entities: what a viewer shows is the text as given.
    expect(texts).toEqual(expect.arrayContaining(['R&D', 'Tom & Jerry <3', 'Profit & <Loss>\ufffd', 'a > b "q"', "it's", '<y>']));
    expect(raw).toContain('R&amp;D');
    expect(escapeXml('a<b>&"\'')).toBe('a&lt;b&gt;&amp;&quot;&apos;');
    expect(escapeXml('\ud800x')).toBe('\ufffdx');
  });

  it('stays well-formed and within bounds with 1000 points and long labels', () => {
    const labels = Array.from({ length: 1000 }, (_, i) => `A rather long category label number ${i}`);
    const values = labels.map((_, i) => Math.sin(i / 20) * 100);
    for (const type of ['bar', 'line'] as const) {
      const raw = render({ type, data: { labels, series: [{ name: 'wave', values }] } });
      const svg = parse(raw);
      const ticks = all(svg, 'text').filter((t) => t.class === 'x-tick');
      expect(ticks.length).toBeGreaterThan(5);
      expect(ticks.length).toBeLessThan(100); // thinned, not 1000 overlapping labels
      expect(all(svg, 'circle')).toHaveLength(0);
      expect(raw.length).toBeLessThan(400_000);
    }
    const pie = parse(render({ type: 'pie', data: { labels: labels.slice(0, 300), series: [{ name: 'p', values: labels.slice(0, 300).map(() => 1) }] } }));
    const more = all(pie, 'text').filter((t) => t.class === 'legend-more').map(textOf);
    expect(more[0]).toMatch(/^… and \d+ more — \d+\.\d%$/);
  });

  it('gives many slices distinct colours', () => {
    const colours = new Set(Array.from({ length: 40 }, (_, i) => chartColor(i)));
    expect(colours.size).toBe(40);
    for (const c of colours) expect(c).toMatch(/^#[0-9a-f]{6}$/);
  });
});
