// Helpers of the media tests: real media made in the test (sharp, ffmpeg), multipart uploads,
// content items created through the content API, and waiting on the processing job.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { sql } from 'drizzle-orm';
import type { RunningService } from '../../service.js';
import type { TestUser } from '../helpers/api.js';

const run = promisify(execFile);
export const UPLOAD = '/file-processing/api/v1/upload';

export const scratchDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'revs-media-'));

export async function makeImage(format: 'jpeg' | 'png' | 'webp' | 'gif', width = 64, height = 48): Promise<Buffer> {
  const base = sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 40 } } });
  return base.toFormat(format).toBuffer();
}

/** A short real video (testsrc + sine) made with ffmpeg. */
export async function makeVideo(file: string, opts: { seconds?: number; size?: string; audio?: boolean } = {}): Promise<Buffer> {
  const args = ['-loglevel', 'error', '-y', '-f', 'lavfi', '-i', `testsrc=size=${opts.size ?? '320x240'}:rate=25`];
  if (opts.audio !== false) args.push('-f', 'lavfi', '-i', 'sine=frequency=440');
  args.push('-t', String(opts.seconds ?? 3), '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p');
  if (opts.audio !== false) args.push('-c:a', 'aac');
  args.push(file);
  await run('ffmpeg', args);
  return fs.readFileSync(file);
}

/** A minimal one-page PDF. */
export function makePdf(): Buffer {
  return Buffer.from(
    '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n' +
      '3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
  );
}

/** Text behind a valid MP4 signature: passes the byte check, but no tool can decode it. */
export function fakeMp4(): Buffer {
  const ftyp = Buffer.from([0, 0, 0, 0x18, ...Buffer.from('ftypmp42'), 0, 0, 0, 0, ...Buffer.from('mp42isom')]);
  return Buffer.concat([ftyp, Buffer.from('this is a text file posing as a video\n'.repeat(50))]);
}

/**
 * A DASH manifest whose first bytes read as an MP4/MOV box (`<!--` as the size, `free` as the
 * type), so byte sniffing takes it for a video; its BaseURL names a file on the server.
 */
export function manifestPosingAsMp4(target: string, duration = 'PT2S'): Buffer {
  return Buffer.from(
    '<!--free-->\n' +
      `<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="${duration}" minBufferTime="PT1S" ` +
      'profiles="urn:mpeg:dash:profile:isoff-on-demand:2011"><Period><AdaptationSet mimeType="video/mp4">' +
      `<Representation id="1" bandwidth="100000" width="320" height="240"><BaseURL>file://${target}</BaseURL></Representation>` +
      '</AdaptationSet></Period></MPD>\n',
  );
}

export function form(parts: { name: string; value: string | Buffer; filename?: string; type?: string }[]): FormData {
  const fd = new FormData();
  for (const p of parts) {
    if (p.filename !== undefined)
      fd.append(
        p.name,
        new Blob([typeof p.value === 'string' ? p.value : new Uint8Array(p.value)], { type: p.type ?? 'application/octet-stream' }),
        p.filename,
      );
    else fd.append(p.name, String(p.value));
  }
  return fd;
}

export async function createContent(user: TestUser): Promise<string> {
  const res = await user.api.post('/content/api/v1/content', {
    price: 2_000_000_000,
    unit_price: 'VND',
    area: 60,
    unit_area: 'm2',
    content_info: [{ lang: 'en', project_name: 'Media test flat', description: 'For upload tests', address: 'District 1' }],
  });
  if (res.status !== 201) throw new Error(`content creation failed: ${res.status} ${res.text}`);
  return res.body.data.id;
}

/** The media URL's path on this test server (the URL's host may be `localhost`). */
export const onServer = (baseUrl: string, mediaUrl: string) => baseUrl + new URL(mediaUrl).pathname;

export interface JobState {
  status: string;
  attempts: number;
  last_error: string | null;
}

export async function latestJob(service: RunningService, contentId: string): Promise<JobState | null> {
  const rows = await service.app.database.rows<JobState>(
    sql`select status, attempts, last_error from video_jobs where content_id = ${contentId} order by created_at desc limit 1`,
  );
  return rows[0] ?? null;
}

export async function contentVideo(service: RunningService, contentId: string): Promise<{ status: string; video: Record<string, any> }> {
  const rows = await service.app.database.rows<{ status: string; video: Record<string, any> }>(sql`select status, video from contents where id = ${contentId}`);
  return rows[0];
}

/** Polls until the content's latest job is completed or failed (the test's own timeout bounds it). */
export async function waitForJobEnd(service: RunningService, contentId: string): Promise<JobState> {
  for (;;) {
    const job = await latestJob(service, contentId);
    if (job && (job.status === 'completed' || job.status === 'failed')) return job;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A raw HTTP request (the path is sent exactly as given: no URL normalisation). */
export function rawRequest(
  baseUrl: string,
  options: { method?: string; path: string; headers?: Record<string, string | number>; body?: Buffer | null; endBody?: boolean },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, method: options.method ?? 'GET', path: options.path, headers: options.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (options.body) req.write(options.body);
    if (options.endBody !== false) req.end();
  });
}

/** Temporary upload files left; the node removes them just after answering, so this waits (bounded) for none. */
export async function tmpUploadLeftovers(service: RunningService): Promise<string[]> {
  const read = () => fs.readdirSync(service.config.tmpDir).filter((f) => f.startsWith('upload-'));
  for (let tries = 0; tries < 50 && read().length > 0; tries++) await new Promise((r) => setTimeout(r, 100));
  return read();
}
