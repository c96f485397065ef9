import { countTokens } from '@anthropic-ai/tokenizer';
import { describe, expect, it } from 'vitest';
import { cpuMs } from '../harness/cpu-time';
import { estimateContentTokens, estimateTokens, IMAGE_TOKENS, walkPieces } from '../../lib/agent/token-estimate';

// Hand-written texts: none of them is in the bench's calibration set.
const ENGLISH =
  'The lighthouse stood on a rocky point at the mouth of the harbour. Every evening the keeper climbed ' +
  'the spiral stairs, trimmed the wick and wound the clockwork that turned the lens, so that ships far ' +
  'out at sea could count the flashes and know exactly which coast they were approaching. In winter the ' +
  'storms were so violent that spray reached the lantern room, and the keeper kept a log of every ship he saw.';
const MARKDOWN = [
  '[nav "Main" {[aria-label="Main"]}]',
  '',
  '[Home](/) [Pricing](/pricing) [Docs](https://docs.example.com/getting-started?ref=nav)',
  '',
  '# Create your account {h1}',
  '',
  '[form {#signup}]',
  '[input "Full name" = "Grace Hopper" {#full-name}]',
  '[select "Plan" = "Pro" options: "Free", "Pro" {#plan}]',
  '[checkbox "Send me the newsletter" checked {input[name="newsletter"]}]',
  '[button "Sign up" {[data-testid="submit-signup"]}]',
  '',
  '## Why teams choose us {#why > h2}',
  '',
  '- **Fast**: pages load in under a second.',
  '- **Private**: we never sell your data.',
].join('\n');
const JSON_TEXT = JSON.stringify({
  url: 'https://api.example.com/v2/items?page=3',
  items: Array.from({ length: 12 }, (_, i) => ({ id: 48213 + i, name: `Item ${i}`, price: 19.99 + i, tags: ['red', 'sale'], in_stock: i % 3 !== 0 })),
});
const CODE = `export async function fetchAll(urls: string[], limit = 4): Promise<Response[]> {
  const results: Response[] = new Array(urls.length);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < urls.length) {
      const i = next++;
      results[i] = await fetch(urls[i]!, { credentials: 'omit' });
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, urls.length) }, worker));
  return results;
}`;
const URLS = Array.from({ length: 10 }, (_, i) => `https://www.example.org/articles/2024/06/${1000 + i}-how-to-build-a-lighthouse?utm_source=feed&id=${(i * 7919).toString(16)}`).join('\n');
const CHINESE = '灯塔矗立在港口入口处的岩石岬角上。每天傍晚，看守人爬上螺旋楼梯，修剪灯芯，给转动透镜的发条上弦，这样远在海上的船只就能数清闪光的次数，准确地知道自己正在靠近哪一段海岸。冬天的风暴非常猛烈，浪花甚至打到灯室，看守人记录下他看到的每一艘船。';
const JAPANESE = '灯台は港の入り口にある岩の岬に立っていました。毎晩、灯台守はらせん階段を上り、芯を切りそろえ、レンズを回すぜんまいを巻きました。そうすれば沖の船は光の回数を数え、どの海岸に近づいているのかを正確に知ることができたのです。';
const KOREAN = '등대는 항구 입구의 바위 곶 위에 서 있었다. 매일 저녁 등대지기는 나선형 계단을 올라 심지를 다듬고 렌즈를 돌리는 태엽을 감았다. 그래서 먼 바다의 배들은 불빛이 깜박이는 횟수를 세어 어느 해안에 다가가고 있는지 정확히 알 수 있었다.';
const RUSSIAN = 'Маяк стоял на скалистом мысу у входа в гавань. Каждый вечер смотритель поднимался по винтовой лестнице, подрезал фитиль и заводил часовой механизм, который вращал линзу, чтобы корабли в открытом море могли сосчитать вспышки и точно узнать, к какому берегу они приближаются.';
const TURKISH = 'Deniz feneri limanın girişindeki kayalık bir burunda duruyordu. Her akşam bekçi döner merdivenlerden çıkıp fitili düzeltir ve merceği döndüren saat mekanizmasını kurardı; böylece açık denizdeki gemiler ışıkları sayıp hangi kıyıya yaklaştıklarını tam olarak bilebilirdi.';
const ARABIC = 'كانت المنارة تقف على رأس صخري عند مدخل الميناء. وفي كل مساء كان الحارس يصعد الدرج الحلزوني ويقص الفتيل ويملأ الآلية التي تدير العدسة، حتى تتمكن السفن البعيدة في البحر من عد الومضات ومعرفة الساحل الذي تقترب منه.';

const ratio = (text: string) => estimateTokens(text) / countTokens(text);

describe('estimateTokens', () => {
  it('is 0 for the empty string and at least 1 for any character', () => {
    expect(estimateTokens('')).toBe(0);
    for (const s of ['a', ' ', '\n', '.', '7', '中', '😀', '\u0000', '\uD800']) expect(estimateTokens(s), JSON.stringify(s)).toBeGreaterThanOrEqual(1);
  });

  it('never decreases as a text grows', () => {
    for (const text of [ENGLISH, MARKDOWN, JSON.stringify({ content: MARKDOWN }), JSON_TEXT, CODE, URLS, CHINESE, KOREAN, ARABIC, TURKISH]) {
      let last = 0;
      for (let i = 1; i <= text.length; i++) {
        const n = estimateTokens(text.slice(0, i));
        expect(n, `${JSON.stringify(text.slice(0, i).slice(-20))}`).toBeGreaterThanOrEqual(last);
        last = n;
      }
    }
  });

  it('adds up: two texts joined by a line break cost about what they cost apart', () => {
    const apart = estimateTokens(ENGLISH) + estimateTokens(CODE);
    expect(Math.abs(estimateTokens(`${ENGLISH}\n${CODE}`) - apart)).toBeLessThanOrEqual(2);
  });

  it('counts CJK, Hangul and Cyrillic as dearer per character than English', () => {
    const perChar = (s: string) => estimateTokens(s) / s.length;
    expect(perChar(CHINESE)).toBeGreaterThan(3 * perChar(ENGLISH));
    expect(perChar(JAPANESE)).toBeGreaterThan(3 * perChar(ENGLISH));
    expect(perChar(KOREAN)).toBeGreaterThan(perChar(ENGLISH));
    expect(perChar(RUSSIAN)).toBeGreaterThan(perChar(ENGLISH));
  });

  it('is close to the exact count on prose, Markdown with selectors, JSON, code, URLs and several scripts', () => {
    const cases: [string, string, number][] = [
      ['English', ENGLISH, 0.1],
      ['Markdown with selectors', MARKDOWN, 0.1],
      ['JSON', JSON_TEXT, 0.15],
      ['JSON-encoded Markdown', JSON.stringify({ content: MARKDOWN }), 0.1],
      ['code', CODE, 0.1],
      ['URLs', URLS, 0.15],
      ['Chinese', CHINESE, 0.15],
      ['Japanese', JAPANESE, 0.15],
      ['Turkish', TURKISH, 0.2],
      ['Russian', RUSSIAN, 0.25],
      ['Korean', KOREAN, 0.25],
      ['Arabic', ARABIC, 0.25],
    ];
    const lines = cases.map(([name, text, tolerance]) => {
      const r = ratio(text);
      expect.soft(Math.abs(r - 1), `${name}: estimate ${estimateTokens(text)} vs exact ${countTokens(text)}`).toBeLessThanOrEqual(tolerance);
      return `${name} ${(100 * (r - 1)).toFixed(1)}%`;
    });
    console.log(`[token-estimate] error: ${lines.join(', ')}`);
  });

  it('copes with what a tool result may hold: lone surrogates, control characters, emoji, one endless word or space run', () => {
    const odd = ['\uDC00\uD800x', '\u0000\u0001\u001f', '👍🏽👩‍👩‍👧 ✓ → …', 'a'.repeat(100_000), ' '.repeat(100_000), '\n'.repeat(50_000), "it's 'quoted' we'll"];
    for (const s of odd) {
      const n = estimateTokens(s);
      expect(Number.isFinite(n) && n > 0, JSON.stringify(s.slice(0, 20))).toBe(true);
    }
    // One long word costs in proportion to its length, a space run one token or so.
    expect(estimateTokens('a'.repeat(100_000))).toBeGreaterThan(10_000);
    expect(estimateTokens(' '.repeat(100_000))).toBeLessThan(10);
  });

  it('splits text exactly where the tokenizer splits it', () => {
    const pieces: string[] = [];
    const text = `${MARKDOWN}\n\n  ${CODE}   \n${JSON_TEXT} don't\t'tis ${CHINESE}😀!`;
    walkPieces(text, { piece: (_k, _s, _l, start, end) => void pieces.push(text.slice(start, end)) });
    const PAT = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;
    expect(pieces).toEqual(text.match(PAT));
  });

  it('is quick: 1.5 MB of tool results in well under a quarter of a second, even on a busy machine (the bench gives the real figure)', () => {
    const text = JSON.stringify({ content: `${MARKDOWN}\n${ENGLISH}\n${CODE}\n`.repeat(1100) });
    expect(text.length).toBeGreaterThan(1_000_000);
    estimateTokens(text);
    const [, ms] = cpuMs(() => estimateTokens(text));
    console.log(`[token-estimate] ${(text.length / 1e6).toFixed(2)} MB in ${ms.toFixed(1)} ms of CPU`);
    expect(ms).toBeLessThan(250);
  });
});

describe('estimateContentTokens', () => {
  it('prices text, tool_use input as JSON, tool_result strings and blocks, and images', () => {
    const text = estimateContentTokens([{ type: 'text', text: ENGLISH }]);
    expect(text).toBeGreaterThanOrEqual(estimateTokens(ENGLISH));
    expect(text).toBeLessThanOrEqual(estimateTokens(ENGLISH) + 10);

    const input = { code: CODE, target: 'page', tab_id: 12 };
    const use = estimateContentTokens([{ type: 'tool_use', id: 'toolu_1', name: 'execute_script', input }]);
    expect(use).toBeGreaterThanOrEqual(estimateTokens(JSON.stringify(input)));

    const asString = estimateContentTokens([{ type: 'tool_result', tool_use_id: 'toolu_1', content: JSON_TEXT }]);
    const asBlocks = estimateContentTokens([{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: JSON_TEXT }] }]);
    expect(Math.abs(asString - asBlocks)).toBeLessThanOrEqual(10);
    expect(asString).toBeGreaterThanOrEqual(estimateTokens(JSON_TEXT));

    const image = { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: 'iVBORw0KGgo'.repeat(10_000) } };
    expect(estimateContentTokens([image])).toBe(IMAGE_TOKENS);
    expect(estimateContentTokens([{ type: 'tool_result', tool_use_id: 't', content: [image, { type: 'text', text: 'a chart' }] }])).toBeGreaterThan(IMAGE_TOKENS);

    expect(estimateContentTokens('')).toBeGreaterThanOrEqual(0);
    expect(estimateContentTokens([])).toBe(0);
    expect(estimateContentTokens([{ type: 'tool_result', tool_use_id: 't' }])).toBeGreaterThan(0);
  });
});
