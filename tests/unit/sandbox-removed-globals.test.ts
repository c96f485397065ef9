import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { REMOVED_GLOBALS, REMOVED_NAVIGATOR, removeGlobals } from '../../lib/sandbox/removed-globals';
import { REMOVED_PROBES } from '../harness/sandbox-probes';

describe('the removed globals', () => {
  it('hold every name that once was missing from one of the Workers', () => {
    // The 'v8' Worker and the Python Worker each had a list, and these were only in one.
    const once = ['fetchLater', 'cookieStore', 'Notification', 'FontFace', 'FontFaceSet', 'fonts', 'webkitRequestFileSystem', 'webkitResolveLocalFileSystemURL', 'close'];
    const always = ['fetch', 'XMLHttpRequest', 'WebSocket', 'EventSource', 'WebTransport', 'importScripts', 'Worker', 'SharedWorker', 'indexedDB', 'caches', 'BroadcastChannel', 'postMessage', 'onmessage'];
    expect(REMOVED_GLOBALS).toEqual(expect.arrayContaining([...once, ...always]));
    expect(REMOVED_NAVIGATOR).toEqual(expect.arrayContaining(['storage', 'locks', 'serviceWorker', 'permissions']));
    expect(new Set(REMOVED_GLOBALS).size).toBe(REMOVED_GLOBALS.length);
  });

  it('are the probes, one for each name', () => {
    expect(REMOVED_PROBES.map((p) => p.label)).toEqual([...REMOVED_GLOBALS, ...REMOVED_NAVIGATOR.map((n) => `navigator.${n}`)]);
  });
});

describe('removeGlobals', () => {
  /** A Worker-like global: names on the object and on two prototypes, a navigator with its own prototype. */
  const scope = () => {
    const base = { fetch: () => 'base fetch', Worker: class {}, kept: 1 };
    const middle = Object.assign(Object.create(base), { caches: {}, onmessage: null });
    const navProto = { storage: {}, locks: {}, userAgent: 'test' };
    const navigator = Object.assign(Object.create(navProto), { permissions: {} });
    return Object.assign(Object.create(middle), { fetch: () => 'own fetch', postMessage: () => {}, close: () => {}, navigator, other: 2 });
  };

  it('deletes the names from the scope, every prototype and the navigator, and nothing else', () => {
    const g = scope() as Record<string, any>;
    removeGlobals(g, ['fetch', 'Worker', 'caches', 'onmessage', 'postMessage', 'close', 'absent'], ['storage', 'locks', 'permissions']);
    for (const name of ['fetch', 'Worker', 'caches', 'onmessage', 'postMessage', 'close']) expect(name in g, name).toBe(false);
    expect(['storage', 'locks', 'permissions'].filter((n) => n in g.navigator)).toEqual([]);
    expect([g.kept, g.other, g.navigator.userAgent]).toEqual([1, 2, 'test']);
  });

  it('leaves what cannot be deleted, and a scope without navigator, without throwing', () => {
    const g = Object.defineProperty({} as Record<string, unknown>, 'fetch', { value: 'fixed', configurable: false });
    Object.defineProperty(g, 'navigator', {
      get() {
        throw new Error('no navigator here');
      },
    });
    expect(() => removeGlobals(g, ['fetch'], ['storage'])).not.toThrow();
    expect(g.fetch).toBe('fixed');
    expect(() => removeGlobals(Object.create(null), ['fetch'], ['storage'])).not.toThrow();
  });

  it('works from its source text alone (the v8 Worker gets it so)', () => {
    const context = vm.createContext({ fetch: () => {}, navigator: { storage: {} } });
    vm.runInContext(`(${removeGlobals.toString()})(globalThis, ["fetch"], ["storage"])`, context);
    expect(vm.runInContext('JSON.stringify([typeof fetch, "storage" in navigator])', context)).toBe('["undefined",false]');
  });
});
