/**
 * database skills (the contract's "database"): one tool that runs a read-only SQL query on a
 * connection from Settings → Databases. Its description is the skill's own followed by the
 * schema (tables, columns, types, keys, row counts) and the user's descriptions, read from the
 * connection when a run's tools are built.
 *
 * Read-only is the engine's job (lib/database/read-only-db.ts), not this file's: the SQL goes
 * to the query worker as the model wrote it, and every refusal comes back as a DatabaseError.
 */
import * as v from 'valibot';
import { browserConnectionStore } from '../database/browser-connections';
import { databaseRef, type DatabaseConnection } from '../database/connections';
import { MAX_SQL_CHARS } from '../database/limits';
import type { QueryResult } from '../database/read-only-db';
import { formatSchemaForModel } from '../database/schema-text';
import { ToolError, type ToolDefinition } from '../tools/registry';
import type { DatabaseConfig } from './config';
import { skillFacts } from './facts';
import type { SkillToolFactory } from './services';
import type { SkillRecord } from './types';

export interface ConnectionLookup {
  get(dbId: string): Promise<DatabaseConnection | undefined>;
}

const DatabaseSkillInput = v.object({
  sql: v.pipe(
    v.string('must be a string: the SQL query'),
    v.maxLength(
      MAX_SQL_CHARS,
      (issue) => `the SQL is ${Number(issue.received).toLocaleString('en-US')} characters long; the limit is ${MAX_SQL_CHARS.toLocaleString('en-US')} characters per query`,
    ),
    v.description('One SQLite query: SELECT … or WITH … SELECT …. Add LIMIT or aggregate for big tables; results are capped at 200 rows.'),
  ),
});

const missing = (dbId: string) => `The database "${dbId}" does not exist (any more): add it under Settings → Databases, or change this skill's db_id.`;

export function createDatabaseSkillTools(connections: () => ConnectionLookup): SkillToolFactory<DatabaseConfig> {
  return async (skill, config) => {
    const connection = await connections().get(config.db_id);
    if (!connection) throw new Error(missing(config.db_id));
    return [databaseSkillTool(skill, connection, connections)];
  };
}

export const databaseSkillTools: SkillToolFactory<DatabaseConfig> = createDatabaseSkillTools(browserConnectionStore);

function databaseSkillTool(skill: SkillRecord, connection: DatabaseConnection, connections: () => ConnectionLookup): ToolDefinition<typeof DatabaseSkillInput> {
  const schemaText = formatSchemaForModel(connection.schema, connection.descriptions);
  return {
    name: skill.name,
    ...skillFacts(skill, 'database'),
    description: `${skill.description.trim()}\n\nDatabase "${connection.name}". ${schemaText}`,
    input: DatabaseSkillInput,
    // The SQL's own limit (above) is the one the model should meet; JSON escaping may add to it.
    maxInputChars: MAX_SQL_CHARS * 2,
    async run({ sql }, ctx) {
      // Deleted since the run started: say so rather than let the worker find no file.
      const current = await connections().get(connection.db_id);
      if (!current) throw new ToolError(missing(connection.db_id));
      return formatResult(await ctx.env.database.query(databaseRef(current), sql));
    },
  };
}

/** The engine's compact table, and one line that states the count and the truncated flag. */
export function formatResult(result: QueryResult): string {
  const count = result.row_count === null ? `more than ${result.rows.length}` : String(result.row_count);
  return `${result.table}rows: ${count}, shown: ${result.rows.length}, truncated: ${result.truncated}`;
}
