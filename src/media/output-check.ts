// Checks what one processing run wrote before any of it is published. ffmpeg's HLS and image
// muxers do not stop on a failed write: on a full or read-only storage ffmpeg still exits 0,
// leaving empty or cut-off playlists, segments and thumbnails. So a run counts only once every
// file it made is there, non-empty and complete: the thumbnail a whole JPEG, every playlist closed
// (`#EXT-X-ENDLIST`) and naming only segments that are whole MPEG-TS files, the master naming every
// rung, and no empty file anywhere in the rendition.
// A file that ffmpeg reported written (exit 0) yet is missing, empty or cut off is a write the
// storage did not take: IncompleteOutputError, a storage failure. A whole file whose content is not
// what the run should make (a playlist naming no segment) is an ordinary processing failure.
import fs from 'node:fs';
import path from 'node:path';
import { MASTER_PLAYLIST, RUNG_PLAYLIST } from './hls.js';

/** A processing output that is missing, empty or cut off: the storage did not take what ffmpeg wrote. */
export class IncompleteOutputError extends Error {
  constructor(what: string) {
    super(`incomplete processing output: ${what}`);
    this.name = 'IncompleteOutputError';
  }
}

const unexpected = (what: string) => new Error(`unexpected processing output: ${what}`);

const TS_PACKET = 188;
const TS_SYNC = 0x47;

export interface ProcessingOutputs {
  thumbnailFile: string;
  /** Holds master.m3u8 and one directory per rung (each with index.m3u8 and its segments). */
  hlsDir: string;
  rungNames: string[];
}

/** Throws IncompleteOutputError unless every output of the run is there and complete. */
export async function verifyProcessingOutputs(outputs: ProcessingOutputs): Promise<void> {
  await checkJpeg(outputs.thumbnailFile);
  const master = await readText(path.join(outputs.hlsDir, MASTER_PLAYLIST));
  for (const rung of outputs.rungNames) {
    const playlist = `${rung}/${RUNG_PLAYLIST}`;
    if (!master.split('\n').some((line) => line.trim() === playlist)) throw unexpected(`${MASTER_PLAYLIST} does not name ${playlist}`);
    await checkMediaPlaylist(path.join(outputs.hlsDir, rung), playlist);
  }
  await checkNoEmptyFile(outputs.hlsDir);
}

const relName = (file: string) => path.basename(path.dirname(file)) + '/' + path.basename(file);

async function readText(file: string): Promise<string> {
  const text = await fs.promises.readFile(file, 'utf8').catch(() => '');
  if (!text.startsWith('#EXTM3U')) throw new IncompleteOutputError(`${path.basename(file)} is missing or empty`);
  return text;
}

/** A JPEG that starts with SOI and ends with EOI (a cut-off write lacks the end). */
async function checkJpeg(file: string): Promise<void> {
  const data = await fs.promises.readFile(file).catch(() => Buffer.alloc(0));
  const whole = data.length > 4 && data[0] === 0xff && data[1] === 0xd8 && data[data.length - 2] === 0xff && data[data.length - 1] === 0xd9;
  if (!whole) throw new IncompleteOutputError('the thumbnail is missing, empty or cut off');
}

/** A closed VOD playlist whose every segment is a whole MPEG-TS file. */
async function checkMediaPlaylist(dir: string, name: string): Promise<void> {
  const text = await readText(path.join(dir, RUNG_PLAYLIST));
  const lines = text.split('\n').map((l) => l.trim());
  if (!lines.includes('#EXT-X-ENDLIST')) throw new IncompleteOutputError(`${name} is cut off`);
  const segments = lines.filter((l) => l !== '' && !l.startsWith('#'));
  if (segments.length === 0) throw unexpected(`${name} names no segment`);
  for (const segment of segments) {
    // ffmpeg names segments by their plain file name, beside the playlist.
    if (segment !== path.basename(segment)) throw unexpected(`${name} names a segment outside its directory`);
    await checkSegment(path.join(dir, segment));
  }
}

async function checkSegment(file: string): Promise<void> {
  const handle = await fs.promises.open(file, 'r').catch(() => null);
  if (!handle) throw new IncompleteOutputError(`segment ${relName(file)} is missing`);
  try {
    const { size } = await handle.stat();
    if (size === 0 || size % TS_PACKET !== 0) throw new IncompleteOutputError(`segment ${relName(file)} is empty or cut off`);
    const first = Buffer.alloc(1);
    await handle.read(first, 0, 1, 0);
    if (first[0] !== TS_SYNC) throw new IncompleteOutputError(`segment ${relName(file)} is not MPEG-TS`);
  } finally {
    await handle.close();
  }
}

async function checkNoEmptyFile(dir: string): Promise<void> {
  for (const entry of await fs.promises.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await checkNoEmptyFile(full);
    else if ((await fs.promises.stat(full)).size === 0) throw new IncompleteOutputError(`${relName(full)} is empty`);
  }
}
