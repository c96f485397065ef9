import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { KEY_NAMES, keyForChar, parseChord } from '../../lib/actions/keys';
import { describeIssues } from '../../lib/tools/registry';
import { pageActionInput } from '../../lib/tools/page-actions';

describe('press: keys and chords', () => {
  it('parses named keys, characters and chords', () => {
    expect(parseChord('Enter')).toMatchObject({ key: 'Enter', code: 'Enter', keyCode: 13, ctrl: false, text: '\r' });
    expect(parseChord('Control+A')).toMatchObject({ key: 'a', code: 'KeyA', keyCode: 65, ctrl: true, shift: false });
    expect(parseChord('Control+A').text).toBeUndefined(); // a chord with Control types nothing
    expect(parseChord('Shift+Tab')).toMatchObject({ key: 'Tab', shift: true });
    expect(parseChord('Shift+a')).toMatchObject({ key: 'A', text: 'A', shift: true });
    expect(parseChord('ctrl+shift+z')).toMatchObject({ key: 'Z', ctrl: true, shift: true });
    expect(parseChord('esc')).toMatchObject({ key: 'Escape', keyCode: 27 });
    expect(parseChord('Space')).toMatchObject({ key: ' ', code: 'Space', text: ' ' });
    expect(parseChord('/')).toMatchObject({ key: '/', code: 'Slash', keyCode: 191 });
    expect(parseChord('+')).toMatchObject({ key: '+', code: 'Equal' });
    expect(parseChord('Control++')).toMatchObject({ key: '+', ctrl: true });
    expect(parseChord('Meta+ArrowDown')).toMatchObject({ key: 'ArrowDown', meta: true, keyCode: 40 });
    expect(parseChord('F5')).toMatchObject({ key: 'F5', keyCode: 116 });
  });

  it('refuses unknown keys and modifiers, listing the valid ones', () => {
    expect(() => parseChord('Foo')).toThrow(/^Unknown key "Foo"\. Valid keys: a single character .*Enter, Tab, Escape/);
    expect(() => parseChord('Hyper+A')).toThrow(/"Hyper" in "Hyper\+A" is not a modifier \(Control, Shift, Alt, Meta\)/);
    expect(() => parseChord('Control+')).toThrow(/has no key after its modifiers/);
    expect(() => parseChord('  ')).toThrow(/An empty key/);
    expect(KEY_NAMES).toContain('ArrowUp');
  });

  it('gives each typed character its key and code', () => {
    expect(keyForChar('a')).toEqual({ key: 'a', code: 'KeyA', keyCode: 65, text: 'a' });
    expect(keyForChar('7')).toEqual({ key: '7', code: 'Digit7', keyCode: 55, text: '7' });
    expect(keyForChar('@')).toMatchObject({ code: 'Digit2' });
    expect(keyForChar('\n')).toMatchObject({ key: 'Enter' });
    expect(keyForChar('字')).toEqual({ key: '字', code: '', keyCode: 0, text: '字' });
  });
});

describe('page_action input', () => {
  const check = (input: unknown) => {
    const r = v.safeParse(pageActionInput, input);
    return r.success ? 'ok' : describeIssues('page_action', r.issues, pageActionInput);
  };

  it('accepts each action with what it needs', () => {
    expect(check({ tab_id: 1, action: 'click', selector: '#a' })).toBe('ok');
    expect(check({ tab_id: 1, action: 'fill', selector: '#a', text: '' })).toBe('ok');
    expect(check({ tab_id: 1, action: 'select', selector: '#a', value: 'Pro' })).toBe('ok');
    expect(check({ tab_id: 1, action: 'press', key: 'Control+A' })).toBe('ok');
    expect(check({ tab_id: 1, action: 'scroll', direction: 'down' })).toBe('ok');
    expect(check({ tab_id: 1, action: 'wait_for', text: 'Saved', timeout_ms: 1000 })).toBe('ok');
    expect(check({ tab_id: 1, action: 'wait_for', selector: '.spinner', until: 'disappears' })).toBe('ok');
  });

  it('says what is wrong, naming the argument', () => {
    expect(check({ tab_id: 1, action: 'swipe' })).toMatch(/"action": must be one of click, double_click, hover, .*wait_for/);
    expect(check({ tab_id: 1, action: 'click' })).toBe('Invalid arguments for page_action: "selector": click needs a selector (a {selector} from get_tab_content).');
    expect(check({ tab_id: 1, action: 'type', selector: '#a' })).toMatch(/"text": type needs text/);
    expect(check({ tab_id: 1, action: 'select', selector: '#a' })).toMatch(/"value": select needs value/);
    expect(check({ tab_id: 1, action: 'press' })).toMatch(/"key": press needs key/);
    expect(check({ tab_id: 1, action: 'press', key: 'Foo' })).toMatch(/"key": Unknown key "Foo"\. Valid keys:/);
    expect(check({ tab_id: 1, action: 'wait_for' })).toMatch(/wait_for needs either a selector or a text/);
    expect(check({ tab_id: 1, action: 'wait_for', selector: '#a', text: 'x' })).toMatch(/wait_for needs either a selector or a text/);
    expect(check({ tab_id: 1, action: 'wait_for', text: 'x', timeout_ms: 60_000 })).toMatch(/"timeout_ms": must be at most 30000/);
    expect(check({ tab_id: 1, action: 'scroll', direction: 'sideways' })).toMatch(/"direction": must be one of up, down, left, right, top, bottom/);
    expect(check({ tab_id: 1, action: 'click', selector: '#a', dialog: 'ignore' })).toMatch(/"dialog": must be "dismiss" or "accept"/);
    expect(check({ tab_id: 1, action: 'click', selector: '#a', button: 'right' })).toMatch(/unknown argument "button"/);
  });
});
