/**
 * fitToolImage (lib/browser/screenshot.ts) in a real browser's OffscreenCanvas: what MCP image
 * content (issue 19) is sized with, as screenshots are.
 */
import { describe, expect, test } from 'vitest';
import { fitToolImage } from '../../lib/browser/screenshot';
import { imageDimensions, type ToolImage } from '../../lib/images';

async function png(width: number, height: number, colour: string): Promise<ToolImage> {
  const canvas = new OffscreenCanvas(width, height);
  const ctx = canvas.getContext('2d')!;
  ctx.fillStyle = colour;
  ctx.fillRect(0, 0, width, height);
  const bytes = new Uint8Array(await (await canvas.convertToBlob({ type: 'image/png' })).arrayBuffer());
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return { mediaType: 'image/png', data: btoa(binary), width, height };
}

describe('fitToolImage', () => {
  test('leaves an image within 1,568 px as it is', async () => {
    const small = await png(300, 200, 'rgb(255, 0, 0)');
    expect(await fitToolImage(small)).toEqual(small);
  });

  test('scales a larger one so its long edge is 1,568 px, keeping its colours', async () => {
    const big = await png(3000, 1000, 'rgb(0, 0, 255)');
    const fitted = await fitToolImage(big);
    expect(fitted).toMatchObject({ mediaType: 'image/png', width: 1568, height: 523 });
    expect(imageDimensions(fitted.data)).toEqual({ width: 1568, height: 523 });
    const bitmap = await createImageBitmap(await (await fetch(`data:image/png;base64,${fitted.data}`)).blob());
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = canvas.getContext('2d')!;
    ctx.drawImage(bitmap, 0, 0);
    expect([...ctx.getImageData(700, 200, 1, 1).data]).toEqual([0, 0, 255, 255]);
  });
});
