// The main thread's side of the database thread (PGLITE_THREAD=worker; the thread itself is
// pglite-worker.mjs, which documents the messages). Each call is one message with an id, answered
// once; statements of a transaction carry its id. A thread that dies (a crash, an abort inside
// PGlite) fails everything still waiting and every later call, and is logged: nothing hangs.
import { Worker } from 'node:worker_threads';
import type { Logger } from '../shared/logger.js';
import type { PgliteOptions } from './pglite-open.mjs';
import type { EmbeddedEngine, Run } from './handle.js';

type Request =
  | { kind: 'query'; text: string; params: unknown[]; tx?: number }
  | { kind: 'begin' }
  | { kind: 'commit' | 'rollback'; tx: number }
  | { kind: 'exec'; script: string }
  | { kind: 'close' };

interface SentError {
  name: string;
  message: string;
  stack?: string;
  /** The PostgreSQL fields (code, constraint, detail, …) and any other plain ones. */
  fields: Record<string, string | number | boolean>;
}

type Answer = { id: number; ok: true; rows?: unknown[]; tx?: number } | { id: number; ok: false; error: SentError };

interface Waiting {
  resolve: (answer: { rows?: unknown[]; tx?: number }) => void;
  reject: (err: Error) => void;
}

/** How long close() waits for the thread to checkpoint and close before it ends the thread. */
const CLOSE_TIMEOUT_MS = 30_000;

/** An error from the thread, as the caller would have had it from PGlite on this thread. */
function rebuild(sent: SentError): Error {
  const err = new Error(sent.message);
  err.name = sent.name;
  Object.assign(err, sent.fields);
  if (sent.stack) err.stack = sent.stack;
  return err;
}

/**
 * The error of a call the thread can no longer answer. SQLSTATE 08006 (connection_failure), as a
 * server connection that died mid-query reports: the request is answered 503, not 500
 * (src/shared/unavailable.ts).
 */
function unreachable(cause: Error): Error {
  return Object.assign(new Error(`the embedded database is not reachable: ${cause.message}`, { cause }), { code: '08006' });
}

export class PgliteThread implements EmbeddedEngine {
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  /** Why calls fail from now on: the thread is gone or closed. */
  private gone: Error | null = null;
  private closing = false;

  private constructor(
    private readonly worker: Worker,
    private readonly log: Logger,
  ) {
    worker.on('message', (answer: Answer) => this.settle(answer));
    worker.on('error', (err) => {
      this.log.error({ err }, 'embedded database thread failed');
      this.stopped(err);
    });
    worker.on('exit', (code) => {
      if (!this.closing) this.log.error({ exitCode: code }, 'embedded database thread stopped');
      this.stopped(new Error(`its thread stopped (exit code ${code})`));
    });
    // An idle thread does not keep the process alive (PGlite on the main thread does not either);
    // one with statements under way does.
    worker.unref();
  }

  /** Starts the thread and waits until PGlite is open in it. */
  static async start(options: PgliteOptions, log: Logger): Promise<PgliteThread> {
    const worker = new Worker(new URL('./pglite-worker.mjs', import.meta.url), {
      workerData: options,
      // The service may run under a TypeScript loader; the thread is plain JavaScript.
      execArgv: [],
    });
    await new Promise<void>((resolve, reject) => {
      const done = (err?: Error) => {
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        if (err) reject(err);
        else resolve();
      };
      const onMessage = (msg: { ready?: boolean }) => {
        if (msg?.ready) done();
      };
      const onError = (err: Error) => done(err);
      const onExit = (code: number) => done(new Error(`the embedded database thread exited (code ${code}) while opening the database`));
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    });
    return new PgliteThread(worker, log);
  }

  query: Run = async (text, params) => ({ rows: (await this.call({ kind: 'query', text, params })).rows ?? [] });

  async transaction<T>(fn: (query: Run) => Promise<T>): Promise<T> {
    const { tx } = await this.call({ kind: 'begin' });
    if (tx === undefined) throw new Error('the embedded database thread opened no transaction');
    const query: Run = async (text, params) => ({ rows: (await this.call({ kind: 'query', text, params, tx })).rows ?? [] });
    let result: T;
    try {
      result = await fn(query);
    } catch (err) {
      await this.call({ kind: 'rollback', tx }).catch(() => undefined);
      throw err;
    }
    await this.call({ kind: 'commit', tx });
    return result;
  }

  async exec(script: string): Promise<void> {
    await this.call({ kind: 'exec', script });
  }

  async close(): Promise<void> {
    if (this.gone) return;
    this.closing = true;
    const timer = setTimeout(() => {
      this.log.error({ timeoutMs: CLOSE_TIMEOUT_MS }, 'embedded database thread did not close in time: ending it');
      void this.worker.terminate();
    }, CLOSE_TIMEOUT_MS);
    try {
      await this.call({ kind: 'close' });
    } finally {
      clearTimeout(timer);
      this.gone ??= new Error('it was closed');
      await this.worker.terminate();
    }
  }

  private call(request: Request): Promise<{ rows?: unknown[]; tx?: number }> {
    if (this.gone) return Promise.reject(unreachable(this.gone));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(id, { resolve, reject });
      try {
        this.worker.postMessage({ id, ...request });
      } catch (err) {
        // A parameter structured cloning cannot carry (a function, say): this call fails alone.
        this.forget(id);
        reject(err);
      }
    });
  }

  private forget(id: number): void {
    this.waiting.delete(id);
    if (this.waiting.size === 0) this.worker.unref();
  }

  private settle(answer: Answer): void {
    const waiting = this.waiting.get(answer.id);
    if (!waiting) return;
    this.forget(answer.id);
    if (answer.ok) waiting.resolve(answer);
    else waiting.reject(rebuild(answer.error));
  }

  /** The thread is gone: everything waiting fails, and so does every later call. */
  private stopped(cause: Error): void {
    this.gone ??= cause;
    for (const waiting of this.waiting.values()) waiting.reject(unreachable(this.gone));
    this.waiting.clear();
  }
}
