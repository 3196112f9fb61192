// Embedded mode with PGlite on its database thread (PGLITE_THREAD=worker, the default): the
// handle answers as PGlite on the main thread does (same values, same errors with their
// PostgreSQL fields, same transactions), the event loop stays free while a statement runs, a
// thread that dies fails what waits instead of hanging, and close() gives DATA_DIR back. The
// database is real (a copy of the suite's migrated template); the service is booted for the
// HTTP-level check. Embedded mode only.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, describe, expect, it, inject } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js';
import { PgliteThread } from '../../src/db/pglite-thread.js';
import { createLogger } from '../../src/shared/logger.js';
import { useTestServer } from '../helpers/fixture.js';
import { ApiClient, uniquePhone, uniqueUsername } from '../helpers/api.js';

const embedded = !process.env.TEST_DATABASE_URL;
const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A data directory holding a copy of the migrated template. */
function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-pglite-thread-'));
  dirs.push(dir);
  const template = inject('pgliteTemplate');
  if (template && fs.existsSync(template)) fs.cpSync(template, path.join(dir, 'pgdata'), { recursive: true });
  return dir;
}

async function open(thread: 'worker' | 'main', dir = dataDir()): Promise<DatabaseHandle> {
  const config = loadConfig({ DATA_DIR: dir, PGLITE_THREAD: thread, LOG_LEVEL: 'silent' });
  return openDatabase(config, createLogger('silent'));
}

// One statement returning a value of every kind the repositories read back.
const TYPED = sql`select timestamptz '2025-01-02 03:04:05.678+00' as at, date '2025-01-02' as day, 9007199254740991::int8 as big,
  count(*) as counted, 12.50::numeric as price, '{"a": [1, "b", null], "n": 1.5}'::jsonb as doc, '[1,2]'::json as list,
  array['x', 'y'] as tags, true as flag, null::text as nothing, 2.5::float8 as ratio, 'é'::bytea as bytes
  from (values (1), (2)) as v(n)`;

describe.skipIf(!embedded)('PGlite on its database thread', () => {
  let worker: DatabaseHandle;
  let main: DatabaseHandle;

  it('answers with the values PGlite on the main thread gives', async () => {
    [worker, main] = await Promise.all([open('worker'), open('main')]);
    const [fromWorker] = await worker.rows<Record<string, unknown>>(TYPED);
    const [fromMain] = await main.rows<Record<string, unknown>>(TYPED);
    expect(fromWorker).toEqual(fromMain);
    expect(fromWorker.at).toBeInstanceOf(Date);
    expect((fromWorker.at as Date).toISOString()).toBe('2025-01-02T03:04:05.678Z');
    expect(fromWorker.day).toBeInstanceOf(Date);
    expect(fromWorker.big).toBe(9007199254740991);
    expect(fromWorker.counted).toBe(2);
    expect(fromWorker.price).toBe('12.50');
    expect(fromWorker.doc).toEqual({ a: [1, 'b', null], n: 1.5 });
    expect(fromWorker.list).toEqual([1, 2]);
    expect(fromWorker.tags).toEqual(['x', 'y']);
    expect(fromWorker.flag).toBe(true);
    expect(fromWorker.nothing).toBeNull();
    expect(fromWorker.ratio).toBe(2.5);
    // Parameters travel the other way unchanged: a Date, json, an array.
    const when = new Date('2024-05-06T07:08:09.010Z');
    const [echo] = await worker.rows<{ at: Date; doc: unknown; tags: string[] }>(
      sql`select ${when}::timestamptz as at, ${JSON.stringify({ k: [1, 2] })}::jsonb as doc, ${sql.param(['a', 'b'])}::text[] as tags`,
    );
    expect(echo).toEqual({ at: when, doc: { k: [1, 2] }, tags: ['a', 'b'] });
    await main.close();
  });

  it('keeps the PostgreSQL fields of an error (a unique violation is 23505 with its constraint)', async () => {
    await worker.rows(sql`create table thread_probe (id int primary key, name text not null unique)`);
    await worker.rows(sql`insert into thread_probe values (1, 'one')`);
    const failure = await worker.rows(sql`insert into thread_probe values (2, 'one')`).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).toMatchObject({ code: '23505', constraint: 'thread_probe_name_key', table: 'thread_probe' });
    expect((failure as Error).message).toMatch(/duplicate key/);
    const syntax = await worker.rows(sql`selec 1`).catch((err: unknown) => err);
    expect(syntax).toMatchObject({ code: '42601' });
  });

  it('rolls a transaction back when a statement in it fails, and commits one that succeeds', async () => {
    const failed = await worker
      .transaction(async (tx) => {
        await tx.rows(sql`insert into thread_probe values (10, 'ten')`);
        await tx.rows(sql`insert into thread_probe values (11, 'one')`);
      })
      .catch((err: unknown) => err);
    expect(failed).toMatchObject({ code: '23505' });
    // A thrown error of the caller's own rolls back too.
    await expect(
      worker.transaction(async (tx) => {
        await tx.rows(sql`insert into thread_probe values (12, 'twelve')`);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    const committed = await worker.transaction(async (tx) => {
      await tx.rows(sql`insert into thread_probe values (13, 'thirteen')`);
      return (await tx.rows<{ n: number }>(sql`select count(*)::int as n from thread_probe`))[0].n;
    });
    expect(committed).toBe(2);
    expect(await worker.rows(sql`select id from thread_probe order by id`)).toEqual([{ id: 1 }, { id: 13 }]);
  });

  it('makes a query from outside an open transaction wait for its end', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inserted!: () => void;
    const insertedOnce = new Promise<void>((r) => (inserted = r));
    const transaction = worker.transaction(async (tx) => {
      await tx.rows(sql`insert into thread_probe values (20, 'twenty')`);
      inserted();
      await held;
      await tx.rows(sql`insert into thread_probe values (21, 'twenty-one')`);
    });
    await insertedOnce;
    const outside = worker.rows<{ n: number }>(sql`select count(*)::int as n from thread_probe where id >= 20`);
    release();
    await transaction;
    // Both rows of the transaction, never half of it.
    expect(await outside).toEqual([{ n: 2 }]);
  });

  it('runs scripts, and rolls back what a failing one left open', async () => {
    await worker.execScript('create table thread_script (x int); insert into thread_script values (1);');
    await expect(worker.execScript('begin; insert into thread_script values (2); select 1/0;')).rejects.toMatchObject({ code: '22012' });
    expect(await worker.rows(sql`select x from thread_script`)).toEqual([{ x: 1 }]);
  });

  it('leaves the event loop free while a statement runs', async () => {
    let turns = 0;
    let counting = true;
    const spin = () => {
      turns++;
      if (counting) setImmediate(spin);
    };
    setImmediate(spin);
    // About a second of work inside PGlite; on the main thread (PGLITE_THREAD=main) the loop
    // turns no single time meanwhile.
    await worker.rows(sql`select count(*) from generate_series(1, 1000000) as g where md5(g::text) like 'ab%'`);
    counting = false;
    expect(turns).toBeGreaterThan(1);
  });

  it('closes: the lock file goes, and later calls fail at once as an unreachable database', async () => {
    const dir = dataDir();
    const db = await open('worker', dir);
    expect(fs.existsSync(path.join(dir, 'service.lock'))).toBe(true);
    await db.rows(sql`create table kept (x int)`);
    await db.rows(sql`insert into kept values (7)`);
    await db.close();
    expect(fs.existsSync(path.join(dir, 'service.lock'))).toBe(false);
    await expect(db.ping()).rejects.toMatchObject({ code: '08006' });
    // The directory opens again, with what was written before.
    const again = await open('worker', dir);
    expect(await again.rows(sql`select x from kept`)).toEqual([{ x: 7 }]);
    await again.close();
    await worker.close();
  });

  it('fails what waits when the thread dies, logs it, and fails later calls too', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const thread = await PgliteThread.start({ pgdata: path.join(dataDir(), 'pgdata'), sharedBuffers: '16MB' }, log);
    expect(await thread.query('select 1 as one', [])).toEqual({ rows: [{ one: 1 }] });
    const long = thread.query(`select count(*) from generate_series(1, 50000000)`, []);
    // The thread ends abruptly, as it would on a crash inside PGlite.
    await (thread as unknown as { worker: Worker }).worker.terminate();
    await expect(long).rejects.toMatchObject({ code: '08006' });
    await expect(thread.query('select 1', [])).rejects.toMatchObject({ code: '08006' });
    expect(lines.join('')).toContain('embedded database thread stopped');
  });
});

describe.skipIf(!embedded)('the service on the database thread', () => {
  const server = useTestServer({ PGLITE_THREAD: 'worker' });

  it('serves, and maps a unique violation from the thread to the API error', async () => {
    const api = new ApiClient(server.url);
    const username = uniqueUsername();
    const body = { username, password: 'thread-password-1', phone_number: uniquePhone(), given_name: 'Thread', family_name: 'Test' };
    const first = await api.post('/auth/api/v1/register', body);
    expect(first.status).toBe(201);
    const again = await api.post('/auth/api/v1/register', { ...body, phone_number: uniquePhone() });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ error_code: 'auth.error.user_exists' });
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });
});
