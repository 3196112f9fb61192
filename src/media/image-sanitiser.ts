// The one path every stored image takes (avatars, content images, images of the general upload;
// CONTRACT §19): the dimensions are read from the header and an image above the pixel limit is
// refused before anything is decoded (a 100 KB PNG can declare 30000×30000 pixels); the image is
// then decoded with the same limit, turned upright by its EXIF orientation and re-encoded, which
// drops every piece of metadata (EXIF with GPS, XMP, IPTC, ICC, PNG text): sharp writes none
// unless asked to with keepMetadata/withMetadata, which is never done here.
//
// Formats: JPEG stays JPEG, PNG stays PNG, WebP stays WebP (first frame only), BMP becomes PNG
// (lossless, keeps alpha) unless the caller asks for a format (avatars are always WebP).
// No decoding runs on the event loop: sharp works on libuv's thread pool, and BMP, which this
// build of libvips cannot read, is decoded in a worker thread (bmp-decode-worker.mjs).
import fs from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import sharp, { type Sharp } from 'sharp';
import { AppError } from '../shared/errors.js';

export type ImageFormat = 'jpeg' | 'png' | 'webp';
type InputFormat = ImageFormat | 'bmp';

const IMAGE_FORMATS: Record<ImageFormat, { ext: string; mime: string }> = {
  jpeg: { ext: 'jpg', mime: 'image/jpeg' },
  png: { ext: 'png', mime: 'image/png' },
  webp: { ext: 'webp', mime: 'image/webp' },
};

export interface SanitiseOptions {
  /** Largest width × height accepted (config.MAX_IMAGE_PIXELS). */
  maxPixels: number;
  /** Form field named in error details. */
  field: string;
  /** The error for a file that is not a decodable image (each endpoint keeps its own code). */
  unreadable: () => AppError;
  /** Output format; by default the input's own (BMP → PNG). */
  output?: ImageFormat;
  /** Shrink (never enlarge) to fit inside a square of this side. */
  fitInside?: number;
}

export interface CleanImage {
  data: Buffer;
  format: ImageFormat;
  ext: string;
  mime: string;
  width: number;
  height: number;
}

interface Header {
  format: InputFormat;
  width: number;
  height: number;
}

/** A decode or encode taking longer than this is abandoned (the client's file is at fault). */
const PROCESS_TIMEOUT_SECONDS = 30;
const BMP_WORKER_TIMEOUT_MS = 20_000;
/** Each BMP worker may hold a few hundred MB at the pixel limit: only this many run at once. */
const MAX_BMP_WORKERS = 2;
const QUALITY = { jpeg: 90, webp: 85 };

const imageTooLarge = (field: string, maxPixels: number, width: number, height: number) =>
  new AppError(413, 'file.error.image_too_large', `The image is ${width}×${height} pixels; at most ${maxPixels} pixels are accepted`, {
    field,
    constraint: `at most ${maxPixels} pixels (width × height)`,
  });

/** Decodes, checks, re-encodes and strips `file`; answers the clean image in memory. */
export async function sanitiseImage(file: string, options: SanitiseOptions): Promise<CleanImage> {
  const header = await readHeader(file);
  if (!header || header.width <= 0 || header.height <= 0) throw options.unreadable();
  if (header.width * header.height > options.maxPixels) throw imageTooLarge(options.field, options.maxPixels, header.width, header.height);

  let pipeline: Sharp;
  if (header.format === 'bmp') {
    const raw = await decodeBmpInWorker(file, options.maxPixels, options.unreadable);
    pipeline = sharp(raw.pixels, { raw: { width: raw.width, height: raw.height, channels: raw.channels }, limitInputPixels: options.maxPixels });
  } else {
    // The header check above already refused oversized images; limitInputPixels repeats it
    // inside libvips in case the decoder sees other dimensions than the header reader.
    pipeline = sharp(file, { limitInputPixels: options.maxPixels }).rotate();
  }
  if (options.fitInside) {
    pipeline = pipeline.resize(options.fitInside, options.fitInside, { fit: 'inside', withoutEnlargement: true });
  }
  const format = options.output ?? (header.format === 'bmp' ? 'png' : header.format);
  if (format === 'jpeg') pipeline = pipeline.jpeg({ quality: QUALITY.jpeg });
  else if (format === 'webp') pipeline = pipeline.webp({ quality: QUALITY.webp });
  else pipeline = pipeline.png();

  try {
    const { data, info } = await pipeline.timeout({ seconds: PROCESS_TIMEOUT_SECONDS }).toBuffer({ resolveWithObject: true });
    return { data, format, ...IMAGE_FORMATS[format], width: info.width, height: info.height };
  } catch {
    throw options.unreadable();
  }
}

/** Format and dimensions from the header only; null when it is none of the accepted formats. */
async function readHeader(file: string): Promise<Header | null> {
  const bmp = await readBmpHeader(file);
  if (bmp !== undefined) return bmp;
  try {
    // metadata() parses the header without decoding pixels (it runs on the thread pool). Its
    // own limit is off so that an oversized image is reported as such, not as unreadable.
    const m = await sharp(file, { limitInputPixels: false }).metadata();
    if (m.format !== 'jpeg' && m.format !== 'png' && m.format !== 'webp') return null;
    return { format: m.format, width: m.width ?? 0, height: m.height ?? 0 };
  } catch {
    return null;
  }
}

/** DIB header sizes the BMP decoder understands (BITMAPINFOHEADER and its V2–V5 extensions). */
const BMP_DIB_HEADER_SIZES = new Set([40, 52, 56, 108, 124]);

/** undefined: not a BMP; null: a BMP with a header we do not take. */
async function readBmpHeader(file: string): Promise<Header | null | undefined> {
  const head = Buffer.alloc(26);
  const handle = await fs.open(file, 'r');
  let read: number;
  try {
    ({ bytesRead: read } = await handle.read(head, 0, head.length, 0));
  } finally {
    await handle.close();
  }
  if (read < 2 || head.toString('latin1', 0, 2) !== 'BM') return undefined;
  if (read < 26 || !BMP_DIB_HEADER_SIZES.has(head.readUInt32LE(14))) return null;
  // Read as the decoder does: width unsigned, height signed (negative = stored top-down).
  return { format: 'bmp', width: head.readUInt32LE(18), height: Math.abs(head.readInt32LE(22)) };
}

interface RawPixels {
  pixels: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
}

let bmpWorkersRunning = 0;
const bmpWaiting: (() => void)[] = [];

async function decodeBmpInWorker(file: string, maxPixels: number, unreadable: () => AppError): Promise<RawPixels> {
  // A finishing decode hands its slot straight to the next waiter, so the count never overshoots.
  if (bmpWorkersRunning < MAX_BMP_WORKERS) bmpWorkersRunning++;
  else await new Promise<void>((resolve) => bmpWaiting.push(resolve));
  try {
    return await runBmpWorker(file, maxPixels, unreadable);
  } finally {
    const next = bmpWaiting.shift();
    if (next) next();
    else bmpWorkersRunning--;
  }
}

function runBmpWorker(file: string, maxPixels: number, unreadable: () => AppError): Promise<RawPixels> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./bmp-decode-worker.mjs', import.meta.url), {
      workerData: { file, maxPixels },
      // The JS heap holds only the palette and bookkeeping; pixel buffers live outside it.
      resourceLimits: { maxOldGenerationSizeMb: 128 },
      // The service may run under a TypeScript loader; the worker is plain JavaScript.
      execArgv: [],
    });
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
      void worker.terminate();
    };
    const timer = setTimeout(() => finish(() => reject(unreadable())), BMP_WORKER_TIMEOUT_MS);
    worker.once('message', (msg: { ok: true; width: number; height: number; channels: 3 | 4; pixels: ArrayBuffer } | { ok: false }) => {
      if (!msg.ok) return finish(() => reject(unreadable()));
      finish(() => resolve({ pixels: Buffer.from(msg.pixels), width: msg.width, height: msg.height, channels: msg.channels }));
    });
    worker.once('error', (err: Error & { code?: string }) => {
      // Running out of its heap is the file's doing; anything else (the worker failed to load)
      // is ours and surfaces as a 500.
      finish(() => reject(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? unreadable() : err));
    });
    worker.once('exit', () => finish(() => reject(unreadable())));
  });
}
