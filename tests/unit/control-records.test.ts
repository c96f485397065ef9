import { describe, expect, it } from 'vitest';
import { ControlRecords } from '../../lib/browser/control-records';

describe('what get_tab_content recorded about each control, for page_action', () => {
  it('finds a selector by tab and site, the latest read winning', () => {
    const r = new ControlRecords();
    r.record(1, 'https://shop.example/cart', [['[pw="3"]', 'button', 'Pay'], ['#q', 'input', 'Search']]);
    r.record(1, 'https://shop.example/cart', [['[pw="3"]', 'button', 'Pay now']]);
    expect(r.lookup(1, 'https://shop.example/checkout', ' [pw="3"] ')).toEqual({ role: 'button', name: 'Pay now' });
    expect(r.lookup(1, 'https://shop.example/', '#q')).toEqual({ role: 'input', name: 'Search' });
    expect(r.lookup(2, 'https://shop.example/', '#q')).toBeUndefined();
  });

  it('forgets a tab\'s records when it reads another site there, and never answers for another site', () => {
    const r = new ControlRecords();
    r.record(1, 'https://shop.example/', [['#buy', 'button', 'Buy']]);
    expect(r.lookup(1, 'https://evil.example/', '#buy')).toBeUndefined();
    r.record(1, 'https://news.example/', [['#more', 'button', 'More']]);
    expect(r.lookup(1, 'https://shop.example/', '#buy')).toBeUndefined();
    expect(r.lookup(1, 'https://news.example/a', '#more')).toEqual({ role: 'button', name: 'More' });
  });

  it('keeps at most 50 tabs, the least recently read going first', () => {
    const r = new ControlRecords();
    for (let tab = 0; tab < 60; tab++) r.record(tab, 'https://a.example/', [['#x', 'button', `B${tab}`]]);
    expect(r.lookup(0, 'https://a.example/', '#x')).toBeUndefined();
    expect(r.lookup(9, 'https://a.example/', '#x')).toBeUndefined();
    expect(r.lookup(10, 'https://a.example/', '#x')).toEqual({ role: 'button', name: 'B10' });
    expect(r.lookup(59, 'https://a.example/', '#x')).toEqual({ role: 'button', name: 'B59' });
  });
});
