/** Limits shared with code that must not load the engine (the skill tool's schema in the background). */
export const MAX_SQL_CHARS = 100_000;
