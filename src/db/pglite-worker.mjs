// The database thread of embedded mode (PGLITE_THREAD=worker): owns PGlite, whose queries run
// WebAssembly synchronously, so that the main thread's event loop keeps serving sockets while
// the database works. The main thread's side is pglite-thread.ts; it holds the DATA_DIR lock and
// the query timing. Plain JavaScript: it is loaded as it is, from the sources and from dist/.
//
// Messages in: {id, kind: 'query', text, params, tx?} | {id, kind: 'begin'} |
//   {id, kind: 'commit' | 'rollback', tx} | {id, kind: 'exec', script} | {id, kind: 'close'}.
// Answers: {id, ok: true, rows?, tx?} | {id, ok: false, error: {name, message, stack, fields}}.
// PGlite is one connection: its own locks queue everything in order, and a query outside an open
// transaction waits until that transaction ends (exactly as on the main thread).
import { parentPort, workerData } from 'node:worker_threads';
import { openPglite } from './pglite-open.mjs';

/** Rejects a held transaction callback so that PGlite rolls it back; never reaches the caller. */
const ROLLBACK = Symbol('rollback');

const db = await openPglite(workerData);
/** Open transactions by id: the PGlite transaction, and how to end it. */
const transactions = new Map();
let nextTransaction = 1;

/**
 * An error as plain data: structured cloning keeps an Error's message but not the PostgreSQL
 * fields the service relies on (code 23505 → 409, constraint, detail), so those travel apart.
 */
function describe(err) {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err), stack: undefined, fields: {} };
  const fields = {};
  for (const [key, value] of Object.entries(err)) {
    if (key === 'name' || key === 'message' || key === 'stack') continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') fields[key] = value;
  }
  return { name: err.name, message: err.message, stack: err.stack, fields };
}

/** Opens a transaction and holds PGlite's transaction() open until commit or rollback. */
function begin() {
  return new Promise((opened, failed) => {
    const id = nextTransaction++;
    let entered = false;
    const ended = db.transaction(
      (tx) =>
        new Promise((commit, rollback) => {
          entered = true;
          transactions.set(id, { tx, commit, rollback: () => rollback(ROLLBACK), ended });
          opened({ tx: id });
        }),
    );
    // BEGIN itself failed: nothing was opened.
    ended.catch((err) => {
      if (!entered) failed(err);
    });
  });
}

async function end(id, commit) {
  const open = transactions.get(id);
  if (!open) throw new Error(`no open transaction ${id}`);
  transactions.delete(id);
  if (commit) {
    open.commit();
    await open.ended; // a failing COMMIT (deferred constraint) is the caller's error
  } else {
    open.rollback();
    await open.ended.catch((err) => {
      if (err !== ROLLBACK) throw err;
    });
  }
}

async function run(msg) {
  switch (msg.kind) {
    case 'query': {
      const on = msg.tx === undefined ? db : transactions.get(msg.tx)?.tx;
      if (!on) throw new Error(`no open transaction ${msg.tx}`);
      const result = await on.query(msg.text, msg.params);
      return { rows: result.rows };
    }
    case 'begin':
      return begin();
    case 'commit':
      await end(msg.tx, true);
      return {};
    case 'rollback':
      await end(msg.tx, false);
      return {};
    case 'exec':
      try {
        await db.exec(msg.script);
      } catch (err) {
        await db.exec('ROLLBACK').catch(() => undefined);
        throw err;
      }
      return {};
    case 'close':
      await db.query('CHECKPOINT');
      await db.close();
      return {};
    default:
      throw new Error(`unknown request ${String(msg.kind)}`);
  }
}

const fail = (id, err) => parentPort.postMessage({ id, ok: false, error: describe(err) });

parentPort.on('message', (msg) => {
  run(msg).then(
    (answer) => {
      try {
        parentPort.postMessage({ id: msg.id, ok: true, ...answer });
      } catch (err) {
        // A value structured cloning cannot carry: the query fails instead of the thread.
        fail(msg.id, err);
      }
    },
    (err) => fail(msg.id, err),
  );
});
parentPort.postMessage({ ready: true });
