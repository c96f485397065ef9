/**
 * The workspace family: opfs_write, opfs_read, opfs_list, opfs_delete — one private folder in the
 * extension's origin-private file system (lib/workspace holds the rules: paths, text detection,
 * paging, all-or-nothing writes).
 */
import * as v from 'valibot';
import { PATH_HINT } from '../workspace';
import { builtinFacts } from './catalog';
import { defineTool, ToolError } from './registry';

const path = v.pipe(v.string('must be a path string'), v.maxLength(4096, 'must be at most 4096 characters'), v.description(`Path in the workspace. ${PATH_HINT}`));
const lineNumber = (what: string) => v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(1, 'must be at least 1'), v.description(what));

export const opfsWrite = defineTool({
  ...builtinFacts('opfs_write'),
  description:
    'Write a file into the private workspace (parent folders are created; an existing file is replaced). content is text, ' +
    'or a data URL (data:[type][;base64],…) for binary content, which is decoded to bytes. A write either completes or leaves nothing behind.',
  input: v.strictObject({
    path: v.pipe(path, v.nonEmpty('must not be empty')),
    content: v.pipe(v.string('must be a string (text, or a data URL for binary content)'), v.description('File content (a data URL is accepted for binary)')),
  }),
  // A data URL of a few MB is a normal image; the registry's 200k default would refuse it.
  maxInputChars: 70 * 1024 * 1024,
  run: async (input, ctx) => (await ctx.env.workspace()).write(input.path, input.content),
});

export const opfsRead = defineTool({
  ...builtinFacts('opfs_read'),
  description:
    'Read a workspace file. mode "auto" (default) decides by the bytes: text comes back as content, binary as a blob URL ' +
    '(valid while the browser runs; usable by extension pages and skill scripts, not by page scripts). "text" forces text, "blob" a blob URL. ' +
    'Text is read by lines: offset (1-based first line) and limit (lines); without them at most the first 200 lines come back, ' +
    'with total_lines and truncated: true — then page on with offset/limit.',
  input: v.strictObject({
    path: v.pipe(path, v.nonEmpty('must not be empty')),
    mode: v.optional(v.pipe(v.picklist(['text', 'blob', 'auto'], 'must be "text", "blob" or "auto"'), v.description('"text" / "blob" / "auto" (default)')), 'auto'),
    offset: v.optional(lineNumber('First line number (1-based), text only')),
    limit: v.optional(lineNumber('Number of lines to read, text only')),
  }),
  async run(input, ctx) {
    const ws = await ctx.env.workspace();
    if (input.mode === 'blob' && (input.offset !== undefined || input.limit !== undefined)) {
      throw new ToolError('offset and limit page through text; they do not apply to mode "blob".');
    }
    const r = await ws.read(input.path, {
      mode: input.mode,
      ...(input.offset !== undefined ? { offset: input.offset } : {}),
      ...(input.limit !== undefined ? { limit: input.limit } : {}),
    });
    if (r.kind === 'text') {
      const { kind: _kind, ...text } = r;
      return text;
    }
    // Bytes do not go into the conversation: a blob URL of the extension's origin stands for them.
    const blob = await ctx.env.dom.blobUrl(r.path);
    return {
      path: r.path,
      blob_url: blob.url,
      mime_type: r.mime_type,
      size: r.size,
      last_modified: r.last_modified,
      ...(r.format ? { format: r.format } : {}),
      ...(r.note ? { note: r.note } : {}),
    };
  },
});

export const opfsList = defineTool({
  ...builtinFacts('opfs_list'),
  description:
    'List a workspace folder (default the root): each entry with name, kind (file/directory), size and last_modified (files). ' +
    'Folders come first; a folder of more than 1000 entries is listed 1000 at a time (truncated: true, with a note): pass offset to see the next ones.',
  input: v.strictObject({
    path: v.optional(path, ''),
    // Beyond the contract's path: a 10,000-file folder would be ~1 MB of JSON in one result.
    offset: v.optional(lineNumber('First entry to list (1-based), for folders of more than 1000 entries')),
  }),
  run: async (input, ctx) => (await ctx.env.workspace()).list(input.path, input.offset !== undefined ? { offset: input.offset } : {}),
});

export const opfsDelete = defineTool({
  ...builtinFacts('opfs_delete'),
  description: 'Delete a workspace file, or a folder with everything in it.',
  input: v.strictObject({
    path: v.pipe(path, v.nonEmpty('must not be empty')),
  }),
  run: async (input, ctx) => (await ctx.env.workspace()).delete(input.path),
});

export const opfsTools = [opfsWrite, opfsRead, opfsList, opfsDelete];
