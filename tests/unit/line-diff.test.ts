import { describe, expect, it } from 'vitest';
import { lineDiff } from '../../lib/ui/line-diff';

const show = (before: string, after: string) => lineDiff(before, after).map((l) => `${l.kind === 'same' ? ' ' : l.kind === 'added' ? '+' : '-'}${l.text}`);

describe('lineDiff', () => {
  it('marks a changed line in the middle as removed then added', () => {
    expect(show('def run(args):\n    x = 1\n    return str(x)', 'def run(args):\n    x = 2\n    return str(x)')).toEqual([
      ' def run(args):',
      '-    x = 1',
      '+    x = 2',
      '     return str(x)',
    ]);
  });

  it('finds insertions and deletions around common lines', () => {
    expect(show('a\nb\nc\nd', 'a\nc\nd\ne')).toEqual([' a', '-b', ' c', ' d', '+e']);
    expect(show('', 'x')).toEqual(['-', '+x']);
    expect(show('same', 'same')).toEqual([' same']);
  });

  it('keeps every line of both sides, in order', () => {
    const before = Array.from({ length: 300 }, (_, i) => `line ${i % 7}`).join('\n');
    const after = Array.from({ length: 280 }, (_, i) => `line ${i % 5}`).join('\n');
    const diff = lineDiff(before, after);
    expect(diff.filter((l) => l.kind !== 'added').map((l) => l.text).join('\n')).toBe(before);
    expect(diff.filter((l) => l.kind !== 'removed').map((l) => l.text).join('\n')).toBe(after);
  });
});
