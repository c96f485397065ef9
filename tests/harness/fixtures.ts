/**
 * Where the test data lives: inside the repository (tests/fixtures), so a clone tests itself.
 * Each folder names its source and licence (SOURCE.md, LICENSE). Tests, benches and the
 * fixture server take their paths from here, never from a machine's own layout.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');
/** Mozilla Readability's test pages: source.html, expected.html, expected-metadata.json per folder. */
export const READABILITY_DIR = path.join(FIXTURES_DIR, 'readability');
/** Captured search-engine result pages (one folder per engine) and hand-made ones (top level). */
export const SEARCH_DIR = path.join(FIXTURES_DIR, 'search');
/** The Chinook sample database (SQLite). */
export const CHINOOK_PATH = path.join(FIXTURES_DIR, 'databases', 'Chinook_Sqlite.sqlite');
