import { describe, expect, it } from 'vitest';
import { decodeHtml, markdownToText, meanScores, microScores, segmentCounts, shingleCounts, shingles, wordTokens } from '../../scripts/extract-metrics';

const ANNOTATION = /(?<!\\) ?\{(?:"(?:[^"\\\n]|\\.)*"|[^{}"\n])+\}/g;

describe('markdownToText', () => {
  it('keeps link text and drops URLs, images and syntax', () => {
    const md = [
      '## A *title* {#t}',
      '',
      '> Quoted **bold** and [a link](https://example.com/a_(b) "t") and ![a cat](/cat.png).',
      '- item one',
      '1. item two',
      '---',
      '| a | b |',
      '| --- | --- |',
      '| c \\| d | e |',
      'An escaped \\*star\\* and snake\\_case, `code_with *stars*` and <https://example.org/x>.',
      '```js',
      'const a = b_c * 2;',
      '```',
    ].join('\n');
    const text = markdownToText(md).replace(/\s+/g, ' ').trim();
    expect(text).toBe(
      'A title {#t} Quoted bold and a link and . item one item two a b c | d e An escaped *star* and snake_case, code_with *stars* and https://example.org/x. const a = b_c * 2;',
    );
  });

  it('leaves the spans it is told to keep as they are (annotations as sent)', () => {
    const md = '[Home {a[href="/"]}](/) and [button "Go" {#go_btn}]';
    expect(markdownToText(md, ANNOTATION)).toBe('Home {a[href="/"]} and button "Go" {#go_btn}');
  });
});

describe('the shingle metric', () => {
  it('tokenises Unicode word runs with case kept', () => {
    expect(wordTokens('Größe: 12,5 km — naïve_x 東京!')).toEqual(['Größe', '12', '5', 'km', 'naïve_x', '東京']);
  });

  it('counts 4-token shingles as multisets; a short text is one shingle', () => {
    expect([...shingles(['a', 'b', 'c', 'd', 'e'])]).toEqual([['a b c d', 1], ['b c d e', 1]]);
    expect([...shingles(['a', 'b'])]).toEqual([['a b', 1]]);
    expect(shingles([]).size).toBe(0);
    expect(shingleCounts('a b c d e', 'a b c d f')).toEqual({ tp: 1, fp: 1, fn: 1 });
    expect(shingleCounts('x y z w x y z w', 'x y z w')).toEqual({ tp: 1, fp: 4, fn: 0 });
    expect(shingleCounts('', 'a b c d')).toEqual({ tp: 0, fp: 0, fn: 1 });
  });

  it('averages precision and recall over the pages that have them, F1 of the means', () => {
    const s = meanScores([{ tp: 1, fp: 1, fn: 0 }, { tp: 0, fp: 0, fn: 3 }, { tp: 3, fp: 0, fn: 1 }]);
    expect(s.precision).toBeCloseTo((0.5 + 1) / 2);
    expect(s.recall).toBeCloseTo((1 + 0 + 0.75) / 3);
    expect(s.f1).toBeCloseTo((2 * s.precision * s.recall) / (s.precision + s.recall));
  });
});

describe("trafilatura's segment metric", () => {
  it('finds segments after whitespace normalisation and sums over pages', () => {
    const page = segmentCounts('The  main\n text here. Menu', ['main text', 'missing'], ['Menu', 'Footer']);
    expect(page).toEqual({ tp: 1, fn: 1, fp: 1, tn: 1 });
    const none = segmentCounts(null, ['a'], ['b']);
    expect(none).toEqual({ tp: 0, fn: 1, fp: 0, tn: 1 });
    const s = microScores([page, none]);
    expect(s.precision).toBeCloseTo(0.5);
    expect(s.recall).toBeCloseTo(1 / 3);
    expect(s.accuracy).toBeCloseTo(3 / 6); // tp 1 + tn 2 of 6
  });
});

describe('decodeHtml', () => {
  it('follows a BOM, then the declared charset, else UTF-8 when valid, else windows-1252', () => {
    const latin = Uint8Array.from([...Buffer.from('<meta charset="iso-8859-1"><p>'), 0xe9]);
    expect(decodeHtml(latin)).toEqual({ text: '<meta charset="iso-8859-1"><p>é', encoding: 'windows-1252' });
    const httpEquiv = Uint8Array.from([...Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=windows-1250"><p>'), 0x9a]);
    expect(decodeHtml(httpEquiv).text.endsWith('š')).toBe(true);
    expect(decodeHtml(Uint8Array.from([0xef, 0xbb, 0xbf, ...Buffer.from('<p>ü')]))).toEqual({ text: '<p>ü', encoding: 'utf-8' });
    expect(decodeHtml(Buffer.from('<p>ü</p>')).encoding).toBe('utf-8');
    expect(decodeHtml(Uint8Array.from([0x3c, 0x70, 0x3e, 0xfc]))).toEqual({ text: '<p>ü', encoding: 'windows-1252' });
    expect(decodeHtml(Buffer.from('<meta charset="bogus"><p>ü')).encoding).toBe('utf-8');
  });
});

describe('segmentCounts and soft hyphens', () => {
  it('matches a segment whatever soft hyphens either side carries', () => {
    expect(segmentCounts('in die\u00adsem Jahr', ['in diesem Jahr'], []).tp).toBe(1);
    expect(segmentCounts('in diesem Jahr', ['in die\u00adsem Jahr'], []).tp).toBe(1);
    expect(segmentCounts('in diesem Jahr', ['in diesen Jahr'], []).tp).toBe(0);
  });
});
