import { describe, expect, it } from 'vitest';
import { exportAllPart, exportFile, parseImport, toJson, toJsonAll, toMarkdown, utf8Length } from '../../lib/agent/conversation-export';
import type { Conversation, StoredMessage } from '../../lib/contracts/conversation';
import { MAX_IMPORT_BYTES } from '../../lib/contracts/conversation-file';

const T0 = Date.UTC(2026, 11, 2, 7, 21);
const usage = { input: 1200, output: 300, cacheRead: 1000, cacheWrite: 200 };
const PAGE = '<untrusted-content id="0123456789abcdef01234567" source="http://127.0.0.1/index.html">\n# Fixture page\n\nWelcome to the fixture.\nSecond paragraph.\nA fourth line.\n</untrusted-content id="0123456789abcdef01234567">';

function sample(): Conversation {
  return {
    id: 'c-1',
    title: 'Read the fixture page',
    createdAt: T0,
    updatedAt: T0 + 5000,
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Summarise this page' }], at: T0, activeTab: { id: 3, url: 'http://127.0.0.1/index.html', title: 'Fixture [page]', selection: 'Welcome' } },
      { role: 'assistant', content: [{ type: 'text', text: 'I will read it.' }, { type: 'tool_use', id: 'toolu_1', name: 'get_tab_content', input: { tab_id: 3 } }], at: T0 + 1000 },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: PAGE }], at: T0 + 2000, decisions: { toolu_1: { outcome: 'allowed', by: 'rule', rule: 'active_tab', site: 'http://127.0.0.1' } } },
      { role: 'assistant', content: [{ type: 'text', text: 'The page **welcomes** you.' }], at: T0 + 3000 },
    ],
    run: { status: 'done', round: 2, roundCap: 50, usage, cost: 0.0123, unpricedTokens: 0, startedAt: T0, endedAt: T0 + 3000 },
    context: { elidedBefore: 2, compaction: { through: 1, note: 'The user asked for a summary.', at: T0 + 4000 } },
    totals: { usage, cost: 0.0123, unpricedTokens: 0 },
  };
}

/** The sample as JSON with `edit` applied to the parsed envelope: the bad files below. */
function edited(edit: (file: any) => void): string {
  const file = JSON.parse(toJson(sample()));
  edit(file);
  return JSON.stringify(file);
}

const refused = (text: string) => {
  const r = parseImport(text);
  if (r.ok) throw new Error('the file was accepted');
  return r.error;
};

describe('toMarkdown', () => {
  it('writes the words as they were written and folds each tool call to one line', () => {
    expect(toMarkdown(sample())).toBe(
      [
        '# Read the fixture page',
        '',
        'Created 2026-12-02 07:21 UTC · 3 messages',
        '',
        '---',
        '',
        '### You · 2026-12-02 07:21 UTC',
        '',
        'Summarise this page',
        '',
        '*Tab: [Fixture \\[page\\]](<http://127.0.0.1/index.html>)*',
        '',
        '---',
        '',
        '### Assistant · 2026-12-02 07:21 UTC',
        '',
        'I will read it.',
        '',
        '- **get_tab_content** `{"tab_id":3}` → `# Fixture page ⏎ Welcome to the fixture. ⏎ Second paragraph.` (' + PAGE.length + ' characters in all)',
        '',
        'The page **welcomes** you.',
        '',
      ].join('\n'),
    );
  });

  it('marks errors and calls without a result, and fences text that holds backticks', () => {
    const c = sample();
    c.messages[1]!.content.push({ type: 'tool_use', id: 'toolu_2', name: 'execute_script', input: { code: 'a`b``c' } });
    c.messages[2]!.content.push({ type: 'tool_result', tool_use_id: 'toolu_2', content: 'SyntaxError: unexpected `', is_error: true });
    c.messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_3', name: 'list_tabs', input: {} }], at: T0 + 4000 });
    const md = toMarkdown(c);
    expect(md).toContain('- **execute_script** ```{"code":"a`b``c"}``` → error: `` SyntaxError: unexpected ` ``\n');
    expect(md).toContain('- **list_tabs** `{}` → *no result*\n');
    // The assistant's messages between tool rounds stay under one heading.
    expect(md.match(/### Assistant/g)).toHaveLength(1);
  });

  it('cuts a long one-line result and says how much is left out', () => {
    const c = sample();
    (c.messages[2]!.content[0] as { content: string }).content = 'x'.repeat(1000);
    expect(toMarkdown(c)).toContain(`→ \`${'x'.repeat(199)}…\` (1,000 characters in all)`);
  });

  it("shows a tool's JSON answer as key: value lines, its fenced page text unfenced", () => {
    const c = sample();
    const answer = { tab_id: 3, url: 'http://127.0.0.1/index.html', title: 'Fixture', content: PAGE };
    (c.messages[2]!.content[0] as { content: string }).content = JSON.stringify(answer);
    const line = toMarkdown(c).split('\n').find((l) => l.startsWith('- **get_tab_content**'));
    expect(line).toBe(`- **get_tab_content** \`{"tab_id":3}\` → \`tab_id: 3 ⏎ url: http://127.0.0.1/index.html ⏎ title: Fixture\` (${JSON.stringify(answer).length} characters in all)`);
    (c.messages[2]!.content[0] as { content: string }).content = JSON.stringify({ ok: true, page: PAGE });
    expect(toMarkdown(c)).toContain('→ `ok: true ⏎ page: # Fixture page Welcome to the fixture. Second paragraph. A fourth line.`\n');
  });

  it('takes its words from the caller (the user language)', () => {
    const md = toMarkdown(sample(), { you: 'Siz', assistant: 'Asistan', created: 'Oluşturulma: $1', messages: '$1 mesaj', tab: 'Sekme: $1', error: 'hata', noResult: 'sonuç yok', more: 'toplam $1 karakter' });
    expect(md).toContain('Oluşturulma: 2026-12-02 07:21 UTC · 3 mesaj');
    expect(md).toContain('### Siz · ');
    expect(md).toContain(`(toplam ${PAGE.length} karakter)`);
  });
});

describe('JSON export and import', () => {
  it('wraps the conversation in a versioned envelope', () => {
    const file = JSON.parse(toJson(sample(), new Date(T0)));
    expect(file).toEqual({ format: 'pagewright-conversation', version: 1, exportedAt: '2026-12-02T07:21:00.000Z', conversation: sample() });
  });

  it('reads back exactly what it wrote, context and totals included', () => {
    expect(parseImport(toJson(sample()))).toStrictEqual({ ok: true, conversations: [sample()] });
  });

  it('reads "export all" back, in order', () => {
    const { context: _c, ...rest } = sample();
    const second = { ...rest, id: 'c-2', title: 'Second', messages: [], run: { ...sample().run, status: 'idle' as const } };
    expect(parseImport(toJsonAll([sample(), second]))).toStrictEqual({ ok: true, conversations: [sample(), second] });
  });

  it('brings a run in finished: never running, retrying or paused', () => {
    const c = sample();
    c.run = { ...c.run, status: 'retrying', retry: { at: T0, attempt: 1, maxAttempts: 3, reason: 'overloaded' }, pause: 'round_cap', error: { kind: 'network', message: 'offline' } };
    const r = parseImport(toJson(c));
    expect(r.ok && r.conversations[0]!.run).toStrictEqual(sample().run);
    const empty = { ...sample(), messages: [], context: { elidedBefore: 0 }, run: { ...sample().run, status: 'running' as const } };
    const e = parseImport(toJson(empty));
    expect(e.ok && e.conversations[0]!.run.status).toBe('idle');
  });

  it('accepts a result given as a list of text blocks, and a tool input of any JSON value', () => {
    const c = sample();
    c.messages[2]!.content[0] = { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'ok' }] };
    (c.messages[1]!.content[1] as { input: unknown }).input = 'raw';
    expect(parseImport(toJson(c))).toStrictEqual({ ok: true, conversations: [c] });
  });
});

describe('an import refuses a bad file and names what is wrong', () => {
  it('refuses a 50 MB file on its length, before parsing it', () => {
    const huge = '{"format":"pagewright-conversation",' + ' '.repeat(50 * 1024 * 1024) + '}';
    const started = performance.now();
    expect(refused(huge)).toBe('The file is 50 MB; conversations import from files of at most 25 MB.');
    expect(performance.now() - started).toBeLessThan(50);
    expect(refused(' '.repeat(MAX_IMPORT_BYTES + 1))).toMatch(/^The file is 25 MB;/);
  });

  it.each([
    ['text that is not JSON', 'not json {', /^The file is not JSON \(.+\)\.$/],
    ['a list at the top', '[1, 2]', 'The file is not a Pagewright conversation export: expected a JSON object.'],
    ['another format', JSON.stringify({ format: 'chatgpt', version: 1 }), 'format: expected "pagewright-conversation", got "chatgpt". This file is not a Pagewright conversation export.'],
    ['no format', JSON.stringify({ version: 1 }), 'format: expected "pagewright-conversation", got nothing. This file is not a Pagewright conversation export.'],
    ['a newer version', edited((f) => (f.version = 2)), 'version: this file is version 2, and this Pagewright reads version 1. Update Pagewright to import it.'],
    ['a version as text', edited((f) => (f.version = '1')), 'version: expected 1, got "1".'],
    ['no version', edited((f) => delete f.version), 'version: expected 1, got nothing.'],
    ['no conversation', edited((f) => delete f.conversation), 'conversation: missing (a file holds "conversation" or "conversations").'],
    ['both forms', edited((f) => (f.conversations = [])), 'The file has both "conversation" and "conversations": expected one of them.'],
    ['an empty list', JSON.stringify({ format: 'pagewright-conversation', version: 1, conversations: [] }), 'conversations: the list is empty.'],
    ['a list that is not one', JSON.stringify({ format: 'pagewright-conversation', version: 1, conversations: { a: 1 } }), 'conversations: expected a list, got object.'],
    ['too many conversations', JSON.stringify({ format: 'pagewright-conversation', version: 1, conversations: Array(10_001).fill({}) }), 'conversations: 10001 conversations; at most 10000 import at once.'],
    ['a missing title', edited((f) => delete f.conversation.title), 'conversation.title: missing.'],
    ['missing messages', edited((f) => delete f.conversation.messages), 'conversation.messages: missing.'],
    ['a missing run', edited((f) => delete f.conversation.run), 'conversation.run: missing.'],
    ['a missing usage count', edited((f) => delete f.conversation.run.usage.cacheRead), 'conversation.run.usage.cacheRead: missing.'],
    ['a date as text', edited((f) => (f.conversation.createdAt = 'yesterday')), 'conversation.createdAt: expected number, got "yesterday".'],
    ['a negative token count', edited((f) => (f.conversation.totals.usage.output = -5)), 'conversation.totals.usage.output: expected a number of 0 or more, got -5.'],
    ['an unknown run status', edited((f) => (f.conversation.run.status = 'paused')), 'conversation.run.status: expected idle, running, retrying, awaiting_continue, interrupted, stopped, error or done, got "paused".'],
    ['an unknown role', edited((f) => (f.conversation.messages[1].role = 'system')), 'conversation.messages[1].role: expected user or assistant, got "system".'],
    ['an unknown block type', edited((f) => (f.conversation.messages[3].content[0] = { type: 'image', source: {} })), 'conversation.messages[3].content[0].type: expected text, tool_use or tool_result, got "image".'],
    ['a block without its text', edited((f) => delete f.conversation.messages[3].content[0].text), 'conversation.messages[3].content[0].text: missing.'],
    ['a message with no blocks', edited((f) => (f.conversation.messages[3].content = [])), 'conversation.messages[3].content: a message has at least one block, got 0.'],
    ['content that is not a list', edited((f) => (f.conversation.messages[0].content = 'hello')), 'conversation.messages[0].content: expected Array, got "hello".'],
    ['a tool call without input', edited((f) => delete f.conversation.messages[1].content[1].input), 'conversation.messages[1].content[1].input: missing.'],
    ['an unknown decision', edited((f) => (f.conversation.messages[2].decisions.toolu_1.outcome = 'maybe')), 'conversation.messages[2].decisions.toolu_1.outcome: expected allowed, denied or blocked, got "maybe".'],
    ['a selection over the cap', edited((f) => (f.conversation.messages[0].activeTab.selection = 'x'.repeat(10_001))), 'conversation.messages[0].activeTab.selection: longer than 10000 characters, got 10001.'],
    ['a result for no call', edited((f) => (f.conversation.messages[2].content[0].tool_use_id = 'toolu_9')), 'conversation.messages[2].content[0].tool_use_id: no tool_use with the id "toolu_9" comes before it.'],
    ['a result given twice', edited((f) => f.conversation.messages[2].content.push({ ...f.conversation.messages[2].content[0] })), 'conversation.messages[2].content[1].tool_use_id: the call "toolu_1" already has a result.'],
    ['a call id used twice', edited((f) => f.conversation.messages[1].content.push({ ...f.conversation.messages[1].content[1] })), 'conversation.messages[1].content[2].id: the tool_use id "toolu_1" is used twice.'],
    ['a tool call in a user message', edited((f) => f.conversation.messages[0].content.push({ type: 'tool_use', id: 'x', name: 'list_tabs', input: {} })), 'conversation.messages[0].content[1].type: a tool_use block belongs in an assistant message.'],
    ['a tool result in an assistant message', edited((f) => f.conversation.messages[3].content.push({ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' })), 'conversation.messages[3].content[1].type: a tool_result block belongs in a user message.'],
    ['an assistant message first', edited((f) => f.conversation.messages.shift()), 'conversation.messages[0].role: a conversation starts with a user message.'],
    ['a view past the last message', edited((f) => (f.conversation.context.elidedBefore = 9)), 'conversation.context.elidedBefore: 9 is past the last of 4 messages.'],
    ['an overlong title', edited((f) => (f.conversation.title = 't'.repeat(201))), 'conversation.title: longer than 200 characters, got 201.'],
  ])('refuses %s', (_what, text, expected) => {
    const error = refused(text);
    if (typeof expected === 'string') expect(error).toBe(expected);
    else expect(error).toMatch(expected);
  });

  it('names the conversation of an "export all" file by its place in the list', () => {
    const bad = JSON.parse(toJsonAll([sample(), sample()]));
    bad.conversations[1].messages[3].content[0].type = 'image';
    expect(refused(JSON.stringify(bad))).toBe('conversations[1].messages[3].content[0].type: expected text, tool_use or tool_result, got "image".');
  });
});

describe('files', () => {
  const now = new Date(T0);

  it('names a file after the conversation and the day, in any script', () => {
    expect(exportFile(sample(), 'markdown', undefined, now)).toMatchObject({ name: 'pagewright-read-the-fixture-page-2026-12-02.md', type: 'text/markdown' });
    expect(exportFile({ ...sample(), title: '여행 계획: 서울!' }, 'json', undefined, now)).toMatchObject({ name: 'pagewright-여행-계획-서울-2026-12-02.json', type: 'application/json' });
    expect(exportFile({ ...sample(), title: '' }, 'json', undefined, now).name).toBe('pagewright-conversation-2026-12-02.json');
  });

  it('"export all" in one file when it fits, in parts that each import again when it does not', async () => {
    const all = new Map(['a', 'b', 'c', 'd'].map((id) => [id, { ...sample(), id }]));
    const load = async (id: string) => all.get(id);
    const ids = [...all.keys()];
    const one = await exportAllPart(ids, load, { from: 0, part: 1, now });
    expect(one.next).toBeUndefined();
    expect(one.file.name).toBe('pagewright-conversations-2026-12-02.json');
    const whole = utf8Length(one.file.text);

    // A limit that holds two conversations and a bit: three files, each under it and importable.
    const limit = Math.floor(whole / 2) + 100;
    const parts = [];
    for (let from: number | undefined = 0, part = 1; from !== undefined; part++) {
      const p: Awaited<ReturnType<typeof exportAllPart>> = await exportAllPart([...ids, 'gone'], load, { from, part, limit, now });
      parts.push(p);
      from = p.next;
    }
    expect(parts.map((p) => p.file.name)).toEqual(['pagewright-conversations-2026-12-02-part1.json', 'pagewright-conversations-2026-12-02-part2.json']);
    const back = parts.flatMap((p) => {
      expect(utf8Length(p.file.text)).toBeLessThanOrEqual(limit);
      const r = parseImport(p.file.text);
      return r.ok ? r.conversations.map((c) => c.id) : [r.error];
    });
    expect(back).toEqual(ids);

    // One conversation larger than the limit still gets its own file.
    const alone = await exportAllPart(ids, load, { from: 0, part: 1, limit: 10, now });
    expect(alone.next).toBe(1);
    expect(JSON.parse(alone.file.text).conversations).toHaveLength(1);
  });

  it('counts UTF-8 bytes as TextEncoder does', () => {
    for (const s of ['', 'abc', 'çğış', '여행 계획', '😀 emoji', 'a\u{10FFFF}b', '\uD800 lone']) expect(utf8Length(s)).toBe(new TextEncoder().encode(s).length);
  });
});

// Keeps the StoredMessage import meaningful for readers: the sample's messages are the contract's.
const _typed: StoredMessage[] = sample().messages;
void _typed;
