/**
 * The database engine for database skills: read-only SQLite (WebAssembly) over a stored file,
 * CSV import into a new file, and the schema text given to the model.
 */
export { csvToDatabase, inferColumnType, sanitizeIdentifier, type ColumnType, type CsvImport, type CsvTable, type ImportedTable } from './csv-import';
export { decodeCsvText, formatCsv, parseCsv } from './csv';
export { DatabaseError, type DatabaseErrorCode } from './errors';
export { MAX_SQL_CHARS, openDatabase, QUERY_DEFAULTS, ReadOnlyDb, type OpenOptions, type QueryOptions, type QueryResult } from './read-only-db';
export type { ColumnInfo, DatabaseSchema, ForeignKey, TableInfo } from './schema';
export { formatSchemaForModel, type DatabaseDescriptions, type SchemaTextOptions } from './schema-text';
export { loadSqlite, type SqliteLoadOptions } from './sqlite';
export { validateSqliteFile } from './sqlite-file';
export type { Cell } from './table-text';
