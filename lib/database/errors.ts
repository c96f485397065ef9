import { ModelFacingError } from '../errors';

export type DatabaseErrorCode =
  | 'empty_sql'
  | 'sql_too_long'
  | 'multiple_statements'
  | 'not_read_only'
  | 'sql_error'
  | 'timeout'
  | 'closed'
  | 'not_sqlite'
  | 'not_csv'
  | 'invalid_csv'
  | 'unknown_database'
  | 'host';

/** Every refusal and failure of the database engine: the message is written for the model. */
export class DatabaseError extends ModelFacingError<DatabaseErrorCode> {
  override readonly name = 'DatabaseError';
}

export const ONLY_QUERIES = 'only SELECT and WITH … SELECT queries run';
