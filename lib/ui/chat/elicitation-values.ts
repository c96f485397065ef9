/**
 * Between an elicitation form's controls and its answer: what the inputs start with (the
 * server's defaults, SEP-1034) and their strings turned into the values the schema asks for.
 */
import type { ElicitationField } from '../../contracts/questions';

/** What a control holds: an input's text, a checkbox's tick, a checkbox group's ticked values. */
export type ControlValue = string | boolean | string[];

export function initialValues(fields: readonly ElicitationField[]): Record<string, ControlValue> {
  const out: Record<string, ControlValue> = {};
  for (const f of fields) {
    if (f.type === 'boolean') out[f.name] = f.default ?? false;
    else if (f.type === 'choices') out[f.name] = [...(f.default ?? [])];
    else if (f.type === 'string' && f.format === 'date-time') out[f.name] = f.default ? toLocalInput(f.default) : '';
    else out[f.name] = f.default === undefined ? '' : String(f.default);
  }
  return out;
}

/** The typed values to check and send; an empty control stays empty (its default then applies). */
export function typedValues(fields: readonly ElicitationField[], values: Readonly<Record<string, ControlValue>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = values[f.name];
    if (f.type === 'number' || f.type === 'integer') {
      const s = typeof v === 'string' ? v.trim() : '';
      // An input the browser could not read as a number reports '' too; NaN says "not a number".
      out[f.name] = s === '' ? undefined : Number(s);
    } else if (f.type === 'string' && f.format === 'date-time') {
      out[f.name] = typeof v === 'string' && v ? fromLocalInput(v) : undefined;
    } else out[f.name] = v;
  }
  return out;
}

/** datetime-local shows local time without a zone; the schema's date-time (RFC 3339) has one. */
function fromLocalInput(local: string): string {
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? local : d.toISOString().replace(/\.000Z$/, 'Z');
}

function toLocalInput(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
