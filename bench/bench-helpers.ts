// What the benches share: free ports, waiting for a node, posting JSON, and statements on the
// PostgreSQL server a server-mode bench creates its scratch database on.
import net from 'node:net';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** Waits until `url` answers 2xx; fails early when `child` (the node being started) exits. */
export async function waitFor(url: string, options: { timeoutMs?: number; child?: ChildProcess } = {}): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  while (Date.now() < deadline) {
    if (options.child && options.child.exitCode !== null) throw new Error(`the node exited with ${options.child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    await sleep(200);
  }
  throw new Error(`${url} did not answer in time`);
}

export async function postJson(url: string, body: unknown): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Runs one statement (CREATE/DROP DATABASE) on the server at `databaseUrl`. */
export async function runOnServer(databaseUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
