// Fuzzes the resumable-upload endpoints (tus, CONTRACT §24) with fast-check over raw sockets:
// POST, HEAD, PATCH, DELETE and OPTIONS (and methods tus does not have) on the collection, on a
// live upload of the caller's, another user's, an unknown id and a garbage one; bodies fixed or
// chunked, short, long, past Upload-Length, cut off mid-body, unterminated; Tus-Resumable,
// Upload-Offset, Upload-Length, Upload-Metadata and Content-Type right, wrong or missing; the
// owner's token, another user's, none, or garbage. Every answer must be below 500 and, when it is
// an error, the SPEC §7 envelope; no upload's file may ever hold more than its Upload-Length; and
// the node must still serve afterwards.
//
//   FUZZ_SEED   fast-check seed (default fixed)     FUZZ_RUNS   cases (default 300)
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { registerAndLogin, type TestUser } from '../helpers/api.js';
import { createContent, makeImage } from '../media/media-helpers.js';
import { RESUMABLE, createUpload, headUpload, metadataHeader } from '../media/resumable-helpers.js';
import { hostileShortString, headerSafe } from './arbitraries.js';
import { NoAnswer, sendRaw, type RawRequest } from './raw-http.js';
import { GARBAGE_AUTH, chunk, garbageAuthorization, type GarbageAuth } from './requests.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261129);
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const ERROR_CODE = /^[a-z_]+\.error\.[a-z_]+$/;

type Target = 'collection' | 'own' | 'others' | 'unknown' | 'garbage';
type Auth = 'owner' | 'other' | 'none' | GarbageAuth;
type Framing = 'none' | 'length' | 'chunked' | 'short-then-hangup' | 'chunked-then-hangup' | 'length-mismatch';
type Bytes = 'next' | 'rest' | 'past-length' | 'random';

interface TusCase {
  method: string;
  target: Target;
  auth: Auth;
  version: string | null;
  offset: 'right' | 'wrong' | 'missing' | string;
  length: 'right' | 'missing' | string;
  metadata: 'right' | 'missing' | string;
  contentType: string | null;
  framing: Framing;
  bytes: Bytes;
  random: Uint8Array;
  hostile: string;
}

/** One of `values`, each as often as its weight: most cases stay close to a valid request, so they reach deep. */
function weighted<T>(...pairs: [T, number][]): fc.Arbitrary<T> {
  return fc.oneof(...pairs.map(([value, weight]) => ({ weight, arbitrary: fc.constant(value) })));
}

const numberish = fc.oneof(fc.constantFrom('-1', '0', '1e3', '0x10', '99999999999999999999', ' 5', '5 5', '', 'NaN'), hostileShortString.map(headerSafe));
const tusCase: fc.Arbitrary<TusCase> = fc.record({
  method: weighted<string>(['PATCH', 6], ['POST', 2], ['HEAD', 1], ['DELETE', 1], ['OPTIONS', 1], ['GET', 1], ['PUT', 1]),
  target: weighted<Target>(['own', 6], ['collection', 1], ['others', 1], ['unknown', 1], ['garbage', 1]),
  auth: fc.oneof({ weight: 3, arbitrary: fc.constant<Auth>('owner') }, { weight: 1, arbitrary: fc.constantFrom<Auth>('other', 'none', ...GARBAGE_AUTH) }),
  version: fc.oneof({ weight: 5, arbitrary: fc.constant('1.0.0') }, { weight: 1, arbitrary: fc.constantFrom(null, '0.2.2', '1.0.0, 0.2.2', '') }),
  offset: fc.oneof(
    { weight: 4, arbitrary: fc.constant('right') },
    { weight: 1, arbitrary: fc.constantFrom('wrong', 'missing') },
    { weight: 1, arbitrary: numberish },
  ),
  length: fc.oneof({ weight: 4, arbitrary: fc.constant('right') }, { weight: 1, arbitrary: fc.constant('missing') }, { weight: 1, arbitrary: numberish }),
  metadata: fc.oneof(
    { weight: 4, arbitrary: fc.constant('right') },
    { weight: 1, arbitrary: fc.constant('missing') },
    { weight: 1, arbitrary: hostileShortString.map(headerSafe) },
  ),
  contentType: fc.oneof(
    { weight: 5, arbitrary: fc.constant('application/offset+octet-stream') },
    { weight: 1, arbitrary: fc.constantFrom(null, 'application/json', 'text/plain', '') },
  ),
  framing: weighted<Framing>(['chunked', 3], ['length', 3], ['none', 1], ['short-then-hangup', 1], ['chunked-then-hangup', 1], ['length-mismatch', 1]),
  bytes: weighted<Bytes>(['past-length', 2], ['next', 1], ['rest', 1], ['random', 1]),
  random: fc.uint8Array({ maxLength: 3000 }),
  hostile: hostileShortString.map(headerSafe),
});

const booted = useTestServer({ RATE_LIMIT_SCALE: '10000', VIDEO_WORKERS: '0' });
let owner: TestUser;
let other: TestUser;
let contentId: string;
let png: Buffer;
let othersUpload: string;
const ownUploads: string[] = [];

beforeAll(async () => {
  [owner, other] = await Promise.all([registerAndLogin(booted.current), registerAndLogin(booted.current)]);
  contentId = await createContent(owner);
  png = await makeImage('png', 120, 90);
  const theirs = await createContent(other);
  othersUpload = (await createUpload(booted.url, other.token, png.length, image(theirs))).location;
});

const image = (id: string) => ({ content_id: id, topic_key: 'video_images_url', filename: 'room.png' });

/** The request for a case; `own` is a fresh upload of the owner's holding `offset` bytes. */
function toRequest(c: TusCase, own: { location: string; offset: number } | null): RawRequest {
  const headers: [string, string][] = [['Host', new URL(booted.url).host]];
  if (c.version !== null) headers.push(['Tus-Resumable', c.version]);
  if (c.auth === 'owner') headers.push(['Authorization', `Bearer ${owner.token}`]);
  else if (c.auth === 'other') headers.push(['Authorization', `Bearer ${other.token}`]);
  else if (c.auth !== 'none')
    headers.push(['Authorization', garbageAuthorization(c.auth, c.hostile, { bearer: null, access: owner.token, refresh: owner.refreshToken })]);

  const offset = own?.offset ?? 0;
  if (c.offset !== 'missing') headers.push(['Upload-Offset', c.offset === 'right' ? String(offset) : c.offset === 'wrong' ? String(offset + 7) : c.offset]);
  if (c.method === 'POST') {
    if (c.length !== 'missing') headers.push(['Upload-Length', c.length === 'right' ? String(png.length) : c.length]);
    if (c.metadata !== 'missing') headers.push(['Upload-Metadata', c.metadata === 'right' ? metadataHeader(image(contentId)) : c.metadata]);
  }
  if (c.contentType !== null) headers.push(['Content-Type', c.contentType]);

  const bytes = {
    next: png.subarray(offset, offset + 500),
    rest: png.subarray(offset),
    'past-length': Buffer.concat([png.subarray(offset), Buffer.from(c.random), Buffer.alloc(10, 1)]),
    random: Buffer.from(c.random),
  }[c.bytes];
  let body: Buffer | undefined;
  let ending: RawRequest['ending'] = 'complete';
  switch (c.framing) {
    case 'none':
      break;
    case 'length':
      headers.push(['Content-Length', String(bytes.length)]);
      body = bytes;
      break;
    case 'length-mismatch':
      // More bytes than announced: the rest reads as the start of a next request.
      headers.push(['Content-Length', String(Math.floor(bytes.length / 2))]);
      body = bytes.subarray(0, Math.floor(bytes.length / 2));
      break;
    case 'short-then-hangup':
      headers.push(['Content-Length', String(bytes.length + 1000)]);
      body = bytes;
      ending = 'hangup';
      break;
    case 'chunked':
    case 'chunked-then-hangup': {
      headers.push(['Transfer-Encoding', 'chunked']);
      const half = Math.floor(bytes.length / 2);
      const parts = Buffer.concat([chunk(bytes.subarray(0, half)), chunk(bytes.subarray(half))]);
      body = c.framing === 'chunked' ? Buffer.concat([parts, Buffer.from('0\r\n\r\n')]) : parts;
      if (c.framing === 'chunked-then-hangup') ending = 'hangup';
      break;
    }
  }
  const target = {
    collection: RESUMABLE,
    own: own?.location ?? RESUMABLE,
    others: othersUpload,
    unknown: `${RESUMABLE}/${randomUUID()}`,
    garbage: `${RESUMABLE}/${encodeURIComponent(c.hostile).slice(0, 200) || '%00'}`,
  }[c.target];
  return { method: c.method, target, headers, body, ending };
}

function envelopeProblem(status: number, method: string, text: string): string | null {
  if (!Number.isInteger(status) || status >= 500) return `status ${status}`;
  if (status < 400 || method === 'HEAD') return null;
  let b: any;
  try {
    b = JSON.parse(text);
  } catch {
    return `status ${status} with a body that is not JSON`;
  }
  if (b?.success !== false || typeof b.error_code !== 'string' || !ERROR_CODE.test(b.error_code) || typeof b.message !== 'string') {
    return `status ${status} without the §7 envelope: ${text.slice(0, 200)}`;
  }
  return null;
}

/** Every upload file on the node, with its size: none may hold more than png.length bytes. */
function oversizedFiles(): string[] {
  const dir = path.join(booted.current.service.config.mediaDir, '.resumable');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((name) => fs.statSync(path.join(dir, name)).size > png.length);
}

let sent = 0;
const crashes: string[] = [];
let lastRequest = '';
const onCrash = (err: Error) => crashes.push(`uncaught exception: ${err?.stack ?? err}\n  while sending or just after: ${lastRequest}`);

async function runCase(c: TusCase): Promise<void> {
  let own: { location: string; offset: number } | null = null;
  if (c.target === 'own') {
    const created = await createUpload(booted.url, owner.token, png.length, image(contentId));
    if (created.status !== 201) throw new Error(`creation: ${created.status} ${created.text}`);
    ownUploads.push(created.location);
    // Some uploads start part-way through.
    const offset = c.random.length % 3 === 0 ? 0 : Math.min(png.length - 1, c.random.length);
    if (offset > 0) {
      const first = await fetch(booted.url + created.location, {
        method: 'PATCH',
        headers: { 'Tus-Resumable': '1.0.0', Authorization: `Bearer ${owner.token}`, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' },
        body: new Uint8Array(png.subarray(0, offset)),
      });
      if (first.status !== 204) throw new Error(`first PATCH: ${first.status}`);
    }
    own = { location: created.location, offset };
  }
  const req = toRequest(c, own);
  lastRequest = `${req.method} ${req.target} ${JSON.stringify(req.headers)} body ${req.body?.length ?? 0} bytes, ${req.ending}`;
  sent++;
  let problem: string | null = null;
  let answer = '';
  try {
    const res = await sendRaw(booted.url, req, req.ending === 'hangup' ? 5_000 : 15_000);
    if (res) {
      problem = envelopeProblem(res.status, req.method, res.text);
      answer = `${res.status} ${res.text.slice(0, 300)}`;
    }
  } catch (err) {
    if (!(err instanceof NoAnswer)) throw err;
    problem = err.message;
  }
  if (!problem && own) {
    const head = await headUpload(booted.url, owner.token, own.location);
    if (head.status >= 500) problem = `HEAD after the case: ${head.status}`;
    else if (head.status === 200 && Number(head.headers.get('upload-offset')) > png.length)
      problem = `offset ${head.headers.get('upload-offset')} past the length`;
  }
  const oversized = oversizedFiles();
  if (!problem && oversized.length) problem = `files past their Upload-Length: ${oversized.join(', ')}`;
  if (problem) throw new Error(`${problem}\n  request: ${lastRequest}\n  answer: ${answer}`);
}

describe('tus fuzz', () => {
  it('answers every generated request below 500 with the §7 envelope, never keeping a byte past Upload-Length', { timeout: 600_000 }, async () => {
    process.on('uncaughtExceptionMonitor', onCrash);
    const result = await fc.check(fc.asyncProperty(tusCase, runCase), { seed: SEED, numRuns: RUNS, endOnFailure: true });
    await new Promise((r) => setTimeout(r, 300));
    process.off('uncaughtExceptionMonitor', onCrash);
    const failures = [...crashes];
    if (result.failed)
      failures.push(
        `${String((result.errorInstance as Error)?.message ?? result.errorInstance)}\n  replay: FUZZ_SEED=${result.seed} (path ${result.counterexamplePath})`,
      );
    console.log(`tus fuzz: ${sent} requests, seed ${SEED}, ${RUNS} runs; ${failures.length} failure(s)`);
    expect(failures, failures.join('\n\n')).toEqual([]);
  });

  it('still serves afterwards: a new upload goes through whole', async () => {
    const fresh = await createContent(owner);
    const { location, status } = await createUpload(booted.url, owner.token, png.length, image(fresh));
    expect(status).toBe(201);
    const done = await fetch(booted.url + location, {
      method: 'PATCH',
      headers: { 'Tus-Resumable': '1.0.0', Authorization: `Bearer ${owner.token}`, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' },
      body: new Uint8Array(png),
    });
    expect(done.status).toBe(204);
    expect(oversizedFiles()).toEqual([]);
  });
});
