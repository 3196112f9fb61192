// Worker thread of src/media/image-sanitiser.ts: decodes one BMP file into raw RGB(A) pixels.
// sharp's libvips has no BMP loader, and decoding in JavaScript on the main thread would stall
// the event loop for every request (a 40-megapixel bitmap held it for 0.7 s). Plain JavaScript
// (not TypeScript) so that Node loads it directly, whatever runs the service (tsx, vitest).
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import * as bmp from 'bmp-ts';

/** @type {{ file: string; maxPixels: number }} */
const { file, maxPixels } = workerData;

function decode() {
  const bytes = fs.readFileSync(file);
  // The caller checked the header already; checked again here because bmp-ts allocates
  // width × height × 4 bytes from these same fields before it reads a single pixel.
  if (bytes.length < 26) throw new Error('truncated header');
  const width = bytes.readUInt32LE(18);
  const height = Math.abs(bytes.readInt32LE(22));
  if (!width || !height || width * height > maxPixels) throw new Error('dimensions out of range');

  // Without toRGBA every bit depth comes out in one layout: A, B, G, R per pixel.
  const decoded = bmp.decode(bytes);
  const abgr = decoded.data;
  // Only 16/32-bit images can carry alpha, and an all-zero alpha byte means "unused" (the
  // common convention), not "fully transparent"; elsewhere the decoder leaves A at 0.
  let hasAlpha = false;
  if (decoded.bitPP === 16 || decoded.bitPP === 32) {
    for (let i = 0; i < abgr.length && !hasAlpha; i += 4) hasAlpha = abgr[i] !== 0;
  }
  const channels = hasAlpha ? 4 : 3;
  const pixels = new Uint8Array(decoded.width * decoded.height * channels);
  for (let i = 0, o = 0; i < abgr.length; i += 4, o += channels) {
    pixels[o] = abgr[i + 3];
    pixels[o + 1] = abgr[i + 2];
    pixels[o + 2] = abgr[i + 1];
    if (hasAlpha) pixels[o + 3] = abgr[i];
  }
  return { width: decoded.width, height: decoded.height, channels, pixels };
}

try {
  const result = decode();
  // Transferred, not copied: the main thread receives the pixels without a second buffer.
  parentPort.postMessage({ ok: true, ...result }, [result.pixels.buffer]);
} catch (err) {
  parentPort.postMessage({ ok: false, reason: err instanceof Error ? err.message : String(err) });
}
