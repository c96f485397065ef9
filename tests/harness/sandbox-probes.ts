/**
 * The one table of removed names every sandbox engine is tested against: QuickJS and Chrome's
 * 'v8' Worker for JavaScript, Pyodide for Python, in unit tests and in both browsers. It is
 * lib/sandbox/removed-globals.ts itself, so a name added there is probed everywhere at once;
 * tests/unit/sandbox-removed-globals.test.ts keeps the names that must never leave the list.
 *
 * Each probe reports the names still reachable, so a failure names them.
 */
import { REMOVED_GLOBALS, REMOVED_NAVIGATOR } from '../../lib/sandbox/removed-globals';

export interface RemovedProbe {
  name: string;
  on: 'global' | 'navigator';
  /** How a failure names it: "fetch", "navigator.storage". */
  label: string;
}

export const REMOVED_PROBES: readonly RemovedProbe[] = [
  ...REMOVED_GLOBALS.map((name) => ({ name, on: 'global' as const, label: name })),
  ...REMOVED_NAVIGATOR.map((name) => ({ name, on: 'navigator' as const, label: `navigator.${name}` })),
];

const JS_PROBE = `
  const probes = ${JSON.stringify(REMOVED_PROBES)};
  const nav = typeof navigator === 'object' && navigator !== null ? navigator : null;
  const found = [];
  for (const p of probes) {
    const target = p.on === 'navigator' ? nav : globalThis;
    if (target === null) continue;
    let reachable;
    try {
      reachable = p.name in target || typeof target[p.name] !== 'undefined';
    } catch (e) {
      reachable = true;
    }
    if (reachable) found.push(p.label);
  }`;

/** An execute_script body: returns the labels of the probes still reachable (an array). */
export const jsProbeBody = (): string => `${JS_PROBE}\n  return found;`;

/** The same as a function skill: run(args) returns them as JSON text. */
export const jsProbeSkill = (): string => `function run(args) {${JS_PROBE}\n  return JSON.stringify(found);\n}`;

/** A Python function skill: each global by `hasattr(js, name)` and `from js import name`. */
export const pyProbeSkill = (): string => `
import js, json
PROBES = json.loads(${JSON.stringify(JSON.stringify(REMOVED_PROBES))})

def run(args):
    found = []
    nav = getattr(js, "navigator", None)
    for p in PROBES:
        if p["on"] == "navigator":
            if nav is not None and hasattr(nav, p["name"]):
                found.append(p["label"])
            continue
        if hasattr(js, p["name"]):
            found.append(p["label"])
        try:
            exec("from js import " + p["name"], {})
            found.append("from js import " + p["name"])
        except ImportError:
            pass
    return json.dumps(found)
`;
