/**
 * ToolCard with skill results: a chart the tool saved in the workspace shows as an image read from
 * OPFS through a blob URL; a file it names gets an "Open in workspace" link to the management page.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { page } from 'vitest/browser';
import { render } from 'vitest-browser-svelte';
import ToolCard from '../../lib/ui/chat/ToolCard.svelte';
import { workspaceFileHash, workspacePathFromHash } from '../../lib/ui/workspace-links';
import { openWorkspace, WORKSPACE_DIR } from '../../lib/workspace';

const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="teal"/><script>window.__svgRan = true</script></svg>';

// Each test writes under a folder of its own in the real workspace (OPFS), removed afterwards.
let folder: string;
beforeEach(() => {
  folder = `test-${crypto.randomUUID()}`;
});
afterEach(async () => {
  vi.restoreAllMocks();
  const root = await (await navigator.storage.getDirectory()).getDirectoryHandle(WORKSPACE_DIR, { create: true });
  await root.removeEntry(folder, { recursive: true }).catch(() => undefined);
});

const card = (name: string) => page.getByRole('group', { name: `Tool call: ${name}` });

describe('workspace_image', () => {
  test('shows the saved chart as an <img> from a blob URL, never as SVG markup, and revokes the URL', async () => {
    const path = `${folder}/charts/sales.svg`;
    await (await openWorkspace()).write(path, SVG);
    const revoke = vi.spyOn(URL, 'revokeObjectURL');

    const screen = await render(ToolCard, {
      name: 'sales_chart',
      input: { data: [1, 2] },
      status: 'done',
      result: JSON.stringify({ ok: true, workspace_image: path, chart: 'bar' }),
    });
    const img = page.getByRole('img', { name: `Image from the workspace: ${path}` });
    await expect.element(img).toBeVisible();
    const el = img.element() as HTMLImageElement;
    expect(el.src).toMatch(/^blob:/);
    await vi.waitFor(() => expect(el.complete && el.naturalWidth).toBe(40));
    // The card is collapsed: the chart is in its summary, so it shows anyway.
    expect((card('sales_chart').element() as HTMLDetailsElement).open).toBe(false);
    expect(document.querySelector('[data-tool="sales_chart"] svg')).toBeNull();
    expect((window as { __svgRan?: boolean }).__svgRan).toBeUndefined();

    const url = el.src;
    screen.unmount();
    expect(revoke).toHaveBeenCalledWith(url);
  });

  test('a file that cannot be read shows the reason instead of an image', async () => {
    await render(ToolCard, {
      name: 'text_to_chart',
      input: {},
      status: 'done',
      result: JSON.stringify({ workspace_image: `${folder}/missing.png` }),
    });
    await expect.element(page.getByRole('alert')).toHaveTextContent(/^Could not show the image: .+/);
    expect(page.getByRole('img').query()).toBeNull();
  });

  test('paths that are not images, and error results, show no image', async () => {
    await render(ToolCard, { name: 'a', input: {}, status: 'done', result: JSON.stringify({ workspace_image: 'notes/readme.md' }) });
    await render(ToolCard, { name: 'b', input: {}, status: 'error', result: JSON.stringify({ workspace_image: 'c.svg' }) });
    await expect.element(card('b')).toBeInTheDocument();
    expect(document.querySelector('[data-workspace-image]')).toBeNull();
  });
});

describe('workspace_file', () => {
  test('"Open in workspace" opens the management page at the file in a new tab', async () => {
    const chrome = ((globalThis as { chrome?: Record<string, unknown> }).chrome ??= {}) as Record<string, unknown>;
    const saved = { runtime: chrome.runtime, tabs: chrome.tabs };
    const create = vi.fn(async (_: { url: string }) => ({}));
    chrome.runtime = { ...(chrome.runtime as object), getURL: (p: string) => `chrome-extension://abc${p}` };
    chrome.tabs = { create };
    try {
      await render(ToolCard, {
        name: 'journal_write',
        input: { entry: 'Met the team' },
        status: 'done',
        result: JSON.stringify({ ok: true, workspace_file: 'journals/conv 1.md' }),
      });
      const link = page.getByRole('link', { name: 'Open in workspace' });
      const expected = 'chrome-extension://abc/options.html#workspace?path=journals%2Fconv%201.md';
      await expect.element(link).toHaveAttribute('href', expected);
      await link.click();
      await vi.waitFor(() => expect(create).toHaveBeenCalledWith({ url: expected }));
    } finally {
      Object.assign(chrome, saved);
    }
  });

  test('the hash round-trips to the path the workspace browser opens', () => {
    expect(workspacePathFromHash(workspaceFileHash('journals/a b&c.md'))).toBe('journals/a b&c.md');
    expect(workspacePathFromHash('#workspace')).toBeUndefined();
    expect(workspacePathFromHash('#skills?path=x.md')).toBeUndefined();
    expect(workspacePathFromHash('#workspacex?path=x.md')).toBeUndefined();
  });
});

test('a skill the card does not know renders like any tool call', async () => {
  await render(ToolCard, { name: 'weather_lookup', input: { city: 'Izmir' }, status: 'done', result: '{"temp": 21}' });
  const c = card('weather_lookup');
  await expect.element(c).toBeInTheDocument();
  await expect.element(c.getByRole('status')).toHaveTextContent('done');
  expect(c.element().querySelector('.result')?.textContent).toBe('{"temp": 21}');
  expect(c.element().querySelector('.args')?.textContent).toContain('"city": "Izmir"');
  expect(document.querySelector('[data-workspace-image], [data-workspace-file]')).toBeNull();
});
