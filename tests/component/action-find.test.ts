/**
 * Finding the element a page action is for (lib/actions/find.ts), in a real browser's layout: by the
 * selector, else — after a re-render — by the role and accessible name recorded at read time, and
 * refused when that is ambiguous or gone.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { find } from '../../lib/actions/find';

const mount = (html: string) => {
  const box = document.createElement('div');
  box.id = 'find-fixture';
  box.innerHTML = html;
  document.body.append(box);
};
afterEach(() => document.getElementById('find-fixture')?.remove());

const failure = (r: ReturnType<typeof find>) => ('ok' in r ? r : null);

describe('find', () => {
  test('takes the one element the selector names', () => {
    mount('<button pw="1">Save</button><button pw="2">Delete</button>');
    const r = find('[pw="2"]', undefined);
    expect('el' in r && r.el.textContent).toBe('Delete');
  });

  test('refuses a selector naming several elements, and names some of them', () => {
    mount('<button class="b">Save</button><button class="b">Delete</button>');
    const r = failure(find('#find-fixture .b', undefined));
    expect(r?.code).toBe('ambiguous');
    expect(r?.message).toContain('matches 2 elements');
    expect(r?.message).toContain('button "Save"');
  });

  test('finds a re-rendered control again by its recorded role and name, and says so', () => {
    mount('<button pw="7">Delete</button><button pw="8">Save</button>');
    const r = find('[pw="3"]', { role: 'button', name: 'Delete' });
    expect('el' in r && r.el.getAttribute('pw')).toBe('7');
    expect('el' in r && r.refound).toMatch(/re-rendered.*found again by its role and name/);
  });

  test('refuses when the recorded role and name fit several controls now, or none', () => {
    mount('<ul><li><button>Delete</button></li><li><button>Delete</button></li></ul><button hidden>Archive</button>');
    const twice = failure(find('[pw="3"]', { role: 'button', name: 'Delete' }));
    expect(twice?.code).toBe('ambiguous');
    expect(twice?.message).toContain('2 elements are a button "Delete"');
    // A hidden control is not one a person could act on: it does not count.
    const gone = failure(find('[pw="4"]', { role: 'button', name: 'Archive' }));
    expect(gone?.code).toBe('no_match');
    expect(gone?.message).toContain('there is no button "Archive" any more');
    const unknown = failure(find('[pw="5"]', undefined));
    expect(unknown?.code).toBe('no_match');
  });

  test('reports a selector that does not parse', () => {
    expect(failure(find('button[', undefined))?.code).toBe('invalid_selector');
  });
});
