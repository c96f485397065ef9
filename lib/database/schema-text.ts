/**
 * The schema as the model reads it, with the user's own descriptions of tables and columns:
 * one line per table, one indented line per column.
 */
import { ONLY_QUERIES } from './errors';
import type { ColumnInfo, DatabaseSchema, TableInfo } from './schema';

export interface DatabaseDescriptions {
  tables?: Record<string, { description?: string; columns?: Record<string, string> }>;
}

export interface SchemaTextOptions {
  /** Beyond this the remaining tables are only counted (default 30,000 characters). */
  maxChars?: number;
}

export function formatSchemaForModel(schema: DatabaseSchema, descriptions: DatabaseDescriptions = {}, options: SchemaTextOptions = {}): string {
  const maxChars = options.maxChars ?? 30_000;
  const n = schema.tables.length;
  let text = `SQLite database, read-only (${ONLY_QUERIES}). ${n} ${n === 1 ? 'table' : 'tables'}:\n`;
  for (const [i, table] of schema.tables.entries()) {
    const block = tableBlock(table, lookup(descriptions.tables, table.name));
    if (text.length + block.length > maxChars) {
      return `${text}… ${n - i} more not shown (list them with: SELECT name, sql FROM sqlite_schema).\n`;
    }
    text += block;
  }
  return text;
}

function tableBlock(table: TableInfo, about: { description?: string; columns?: Record<string, string> } | undefined): string {
  const size = table.kind === 'view' ? 'view' : `${table.row_count?.toLocaleString('en-US') ?? '?'} rows`;
  const description = oneLine(about?.description);
  let block = `\n${table.name} (${size})${description ? `: ${description}` : ''}\n`;
  for (const column of table.columns) {
    const fk = table.foreign_keys.find((k) => k.columns.length === 1 && k.columns[0] === column.name);
    block += `  ${columnLine(column, fk ? `${fk.table}(${fk.to.join(', ')})` : null, oneLine(lookup(about?.columns, column.name)))}\n`;
  }
  for (const fk of table.foreign_keys.filter((k) => k.columns.length > 1)) {
    block += `  (${fk.columns.join(', ')}) → ${fk.table}(${fk.to.join(', ')})\n`;
  }
  return block;
}

function columnLine(column: ColumnInfo, references: string | null, description: string): string {
  const parts = [column.name];
  if (column.type) parts.push(column.type);
  if (column.pk) parts.push('PK');
  if (column.notnull && !column.pk) parts.push('NOT NULL');
  if (references) parts.push(`→ ${references}`);
  return parts.join(' ') + (description ? ` — ${description}` : '');
}

/** Descriptions are matched by name, exactly first, then ignoring case (SQLite does). */
function lookup<T>(map: Record<string, T> | undefined, name: string): T | undefined {
  if (!map) return undefined;
  if (Object.hasOwn(map, name)) return map[name];
  const lower = name.toLowerCase();
  const key = Object.keys(map).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : map[key];
}

function oneLine(text: string | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}
