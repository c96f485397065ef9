/**
 * The workspace family: opfs_write, opfs_read, opfs_list, opfs_delete — one private folder in the
 * extension's origin-private file system (lib/workspace holds the rules: paths, text detection,
 * paging, all-or-nothing writes).
 */
import * as v from 'valibot';
import { builtinFacts } from './catalog';
import { defineTool, ToolError } from './registry';

const path = v.pipe(v.string('must be a path string'), v.maxLength(4096, 'must be at most 4096 characters'));
const lineNumber = v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(1, 'must be at least 1'));

export const opfsWrite = defineTool({
  ...builtinFacts('opfs_write'),
  description:
    'Save a file in your workspace, e.g. "notes/a.md" (folders created, a file replaced). Returns {path, size, created}',
  input: v.strictObject({
    path: v.pipe(path, v.nonEmpty('must not be empty')),
    content: v.pipe(v.string('must be a string (text, or a data URL for binary content)'), v.description('Text, or a data URL for binary')),
  }),
  // A data URL of a few MB is a normal image; the registry's 200k default would refuse it.
  maxInputChars: 70 * 1024 * 1024,
  run: async (input, ctx) => (await ctx.env.workspace()).write(input.path, input.content),
});

export const opfsRead = defineTool({
  ...builtinFacts('opfs_read'),
  description:
    'Read a workspace file. Returns text as {content, total_lines, truncated}, 200 lines unless offset/limit; binary as a ' +
    'blob URL (not for page scripts)',
  input: v.strictObject({
    path: v.pipe(path, v.nonEmpty('must not be empty')),
    mode: v.optional(v.pipe(v.picklist(['text', 'blob', 'auto'], 'must be "text", "blob" or "auto"'), v.description('Default "auto"')), 'auto'),
    offset: v.optional(lineNumber),
    limit: v.optional(lineNumber),
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
    'List a workspace folder (default the root). Returns {entries: [{name, kind, size, last_modified}], truncated}; offset pages on',
  input: v.strictObject({
    path: v.optional(path, ''),
    // Beyond the contract's path: a 10,000-file folder would be ~1 MB of JSON in one result.
    offset: v.optional(lineNumber),
  }),
  run: async (input, ctx) => (await ctx.env.workspace()).list(input.path, input.offset !== undefined ? { offset: input.offset } : {}),
});

export const opfsDelete = defineTool({
  ...builtinFacts('opfs_delete'),
  description: 'Delete a workspace file, or a folder and all in it. Returns {path, kind}',
  input: v.strictObject({
    path: v.pipe(path, v.nonEmpty('must not be empty')),
  }),
  run: async (input, ctx) => (await ctx.env.workspace()).delete(input.path),
});

export const opfsTools = [opfsWrite, opfsRead, opfsList, opfsDelete];
