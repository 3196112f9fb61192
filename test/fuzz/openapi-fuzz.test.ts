// Fuzzes every operation of the served OpenAPI document with fast-check: schema-shaped bodies
// broken in a few places, values of the wrong kind, huge and odd Unicode strings, hostile path
// segments, query strings and headers, garbage bearer tokens, and malformed multipart (cut
// mid-file, bad or repeated boundaries, clients that leave mid-body). Every answer must be below
// 500 and, when it is an error, the SPEC §7 envelope; at the end the node must still serve and
// have no temporary upload left behind (CONTRACT §10, §19).
//
//   FUZZ_SEED   fast-check seed (default fixed, printed)
//   FUZZ_RUNS   cases per operation (multipart operations get 4×); each case is sent twice,
//               without credentials and with a user's or the admin's token (or a garbage one)
//   FUZZ_OP     only operations whose "METHOD /path" contains this text
//   FUZZ_PATH   replay one failing case (with its FUZZ_SEED and FUZZ_OP, as printed on failure)
//   FUZZ_SHRINK=1  shrink a failure to a smaller request (slower)
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { useTestServer } from '../helpers/fixture.js';
import { ApiClient, login, loginAdmin, registerAndLogin, type TestUser } from '../helpers/api.js';
import type { KnownValues } from './arbitraries.js';
import { NoAnswer, sendRaw, type RawResponse } from './raw-http.js';
import { caseArbitrary, describeRequest, toRawRequest, type FuzzCase, type Operation } from './requests.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const RUNS = Number(process.env.FUZZ_RUNS ?? 30);
const ONLY = process.env.FUZZ_OP;
const REPLAY_PATH = process.env.FUZZ_PATH;
const SHRINK = process.env.FUZZ_SHRINK === '1';

/**
 * Operations that end the caller's own sessions, change its credentials or delete its account. With a real token they
 * run as a throwaway user logged in afresh for each case, so the main user's session survives.
 */
const SESSION_ENDING = new Set([
  'POST /auth/api/v1/logout',
  'POST /auth/api/v1/user/change_password',
  'POST /content/api/v1/auth/2fa/toggle',
  'DELETE /content/api/v1/user/sessions/others',
  'DELETE /content/api/v1/user/sessions/{session_id}',
  'DELETE /auth/api/v1/user/me',
]);

/**
 * Staff operations that act on a user (suspend, restore, replace roles) or on what a user wrote
 * (a decision on content suspends its author). Their ids come from `other` only, so the main user
 * (whose token the rest of the fuzz and the last check use) is never suspended by a case.
 */
const actsOnUsers = (op: Operation): boolean =>
  (op.method !== 'GET' && op.path.startsWith('/api/v1/moderation/')) || op.id === 'PUT /authorization/api/v1/users/{userId}/roles';

const ERROR_CODE = /^[a-z_]+\.error\.[a-z_]+$/;

const booted = useTestServer({ RATE_LIMIT_SCALE: '10000' });

let server: TestServer;
let host: string;
let user: TestUser;
let other: TestUser;
let admin: TestUser;
let scratch: TestUser;
const operations: Operation[] = [];
let known: KnownValues;
/** `known` without the main user's records, for the operations of `actsOnUsers`. */
let knownOthers: KnownValues;
let requestsSent = 0;
let hangups = 0;
/** Statuses seen, per operation: printed with FUZZ_STATS=1 to see how deep the cases reach. */
const statuses = new Map<string, Map<number | 'none', number>>();

beforeAll(async () => {
  server = booted.current;
  host = new URL(server.url).host;
  user = await registerAndLogin(server);
  other = await registerAndLogin(server);
  scratch = await registerAndLogin(server, { password: 'scratch-Secret-91x' });
  admin = await loginAdmin(server);

  // A few real records, so that generated ids sometimes hit something and reach deeper code.
  const ids = [user.userId, other.userId, admin.userId, user.sessionId, other.sessionId];
  const content = await user.api.post('/content/api/v1/content', {
    price: 2_500_000_000,
    unit_price: 'VND',
    area: 72,
    unit_area: 'm2',
    video: { original_name: 'tour.mp4', size: 1_000_000 },
    real_estate_info: { apartment_type: 'apartment', project_status: 'completed' },
    content_info: [{ lang: 'en', project_name: 'River view tower', description: 'Two bedrooms' }],
  });
  if (content.status === 201) {
    const contentId = content.body.data.id;
    ids.push(contentId);
    const comment = await user.api.post('/sns/api/v1/comments', { contentId, msg: 'first' });
    if (comment.status === 201) ids.push(comment.body.data._id ?? comment.body.data.id);
  }
  const room = await user.api.post('/sns/api/v1/chat/rooms', { memberIds: [other.userId], name: 'fuzz' });
  if (room.status === 201) {
    const roomId = room.body.data.roomId;
    ids.push(roomId);
    const message = await user.api.post('/sns/api/v1/chat/messages', { roomId, msg: 'hello' });
    if (message.status === 201) ids.push(message.body.data._id ?? message.body.data.id);
  }
  known = {
    ids: ids.filter((x): x is string => typeof x === 'string'),
    usernames: [user.username, other.username, admin.username],
    phones: [user.phone, other.phone, '+84909999999', '0909999999', '+1 202 555 0100'],
  };
  knownOthers = { ...known, ids: [other.userId, other.sessionId].filter((x): x is string => typeof x === 'string') };

  const doc = (await new ApiClient(server.url).get('/api/v1/openapi.json')).body;
  for (const [p, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [m, spec] of Object.entries(methods)) {
      const id = `${m.toUpperCase()} ${p}`;
      if (!ONLY || id.includes(ONLY)) operations.push({ id, method: m.toUpperCase(), path: p, spec });
    }
  }
}, 120_000);

/** The bearer token a case is sent with (a fresh throwaway session for session-ending operations). */
async function bearerFor(op: Operation, c: FuzzCase): Promise<string | null> {
  if (c.auth === 'none' || c.auth === 'garbage') return null;
  if (!SESSION_ENDING.has(op.id)) return c.auth === 'admin' ? admin.token : user.token;
  try {
    return (await login(server, scratch.phone, scratch.password)).token;
  } catch {
    // A fuzzed case may have changed the throwaway user's password or turned on two-factor.
    scratch = await registerAndLogin(server, { password: 'scratch-Secret-91x' });
    return scratch.token;
  }
}

function checkAnswer(res: RawResponse): string | null {
  if (res.status >= 500 || !Number.isInteger(res.status)) return `status ${res.status}`;
  if (res.status < 400) return null;
  let b: any;
  try {
    b = JSON.parse(res.text);
  } catch {
    return `status ${res.status} with a body that is not JSON`;
  }
  if (b?.success !== false) return `status ${res.status} without success:false`;
  if (typeof b.error_code !== 'string' || !ERROR_CODE.test(b.error_code)) return `status ${res.status} with error_code ${JSON.stringify(b.error_code)}`;
  if (typeof b.message !== 'string') return `status ${res.status} without a message`;
  if (typeof b.timestamp !== 'string') return `status ${res.status} without a timestamp`;
  return null;
}

async function healthy(): Promise<string | null> {
  try {
    const res = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(5_000) });
    return res.status === 200 ? null : `GET /healthz answered ${res.status}`;
  } catch (err) {
    return `GET /healthz failed: ${(err as Error).message}`;
  }
}

/** The request being sent (or the last one), to name the cause of a crash inside the server. */
let lastRequest = '';
const crashes: string[] = [];
// The server runs in this process: an exception nobody catches is a crash of the node. Vitest
// reports it too, but without the request that caused it.
const onCrash = (err: Error) => crashes.push(`uncaught exception: ${err?.stack ?? err}\n  while sending or just after:\n${lastRequest}`);

/** Sends one case twice: without credentials, then with the case's (a real token or garbage). */
async function runCase(op: Operation, c: FuzzCase): Promise<void> {
  await sendCase(op, { ...c, auth: 'none' });
  await sendCase(op, c);
}

async function sendCase(op: Operation, c: FuzzCase): Promise<void> {
  const bearer = await bearerFor(op, c);
  const req = toRawRequest(op, c, host, { bearer, access: user.token, refresh: user.refreshToken });
  lastRequest = `${op.id}\n${describeRequest(req, c)}`;
  requestsSent++;
  let problem: string | null;
  let res: RawResponse | null = null;
  try {
    res = await sendRaw(server.url, req);
    problem = res ? checkAnswer(res) : null;
    const seen = statuses.get(op.id) ?? new Map();
    seen.set(res?.status ?? 'none', (seen.get(res?.status ?? 'none') ?? 0) + 1);
    statuses.set(op.id, seen);
  } catch (err) {
    if (!(err instanceof NoAnswer)) throw err;
    problem = err.message;
  }
  if (req.ending === 'hangup') {
    hangups++;
    problem ??= await healthy();
  }
  if (problem) {
    const answer = res ? `\n  answer: ${res.status} ${res.text.slice(0, 400)}` : '';
    throw new Error(`${problem}\n${describeRequest(req, c)}${answer}`);
  }
}

describe('OpenAPI fuzz', () => {
  it('answers every generated request with < 500 and the error envelope', async () => {
    expect(operations.length).toBeGreaterThan(0);
    const started = Date.now();
    const failures: string[] = [];
    process.on('uncaughtExceptionMonitor', onCrash);
    for (const op of operations) {
      const multipart = op.spec.requestBody?.content?.['multipart/form-data'] !== undefined;
      const result = await fc.check(
        fc.asyncProperty(caseArbitrary(op, actsOnUsers(op) ? knownOthers : known), (c) => runCase(op, c)),
        {
          seed: SEED,
          numRuns: multipart ? RUNS * 4 : RUNS,
          endOnFailure: !SHRINK,
          ...(REPLAY_PATH ? { path: REPLAY_PATH } : {}),
        },
      );
      if (result.failed) {
        const e = result.errorInstance;
        // Our own failures carry the request; anything else (a bug in the generators) its stack.
        const cause = e instanceof Error ? (e.message.includes('\n') ? e.message : String(e.stack).split('\n').slice(0, 8).join('\n')) : String(e);
        failures.push(`${op.id}: ${cause}\n  replay: FUZZ_SEED=${result.seed} FUZZ_OP='${op.id}' FUZZ_PATH=${result.counterexamplePath}`);
      }
    }
    // A crash from the last request may surface a moment later.
    await new Promise((r) => setTimeout(r, 500));
    process.off('uncaughtExceptionMonitor', onCrash);
    failures.push(...crashes);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `fuzz: ${requestsSent} requests (${hangups} left mid-body) over ${operations.length} operations in ${seconds} s; ` +
        `seed ${SEED}, ${RUNS} runs per operation; ${failures.length} failure(s)`,
    );
    if (process.env.FUZZ_STATS === '1') {
      for (const [id, seen] of statuses)
        console.log(
          `${id}: ${[...seen]
            .sort()
            .map(([s, n]) => `${s}×${n}`)
            .join(' ')}`,
        );
    }
    if (failures.length) console.log(failures.join('\n\n'));
    expect(failures, failures.join('\n\n')).toEqual([]);
  }, 600_000);

  it('still serves afterwards, with no temporary upload left behind', async () => {
    expect(await healthy()).toBeNull();
    const me = await user.api.get('/auth/api/v1/user/me');
    expect(me.status, me.text).toBe(200);

    const tmp = path.join(server.dataDir, 'tmp');
    let left: string[] = [];
    for (let i = 0; i < 50; i++) {
      left = fs.existsSync(tmp) ? fs.readdirSync(tmp) : [];
      if (!left.length) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(left, `temporary files left in ${tmp}`).toEqual([]);
  });
});
