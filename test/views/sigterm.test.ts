// CONTRACT §26: on a SIGTERM no playback report is lost. A node runs as a process (as an operator
// runs it), takes a stream of reports that each make a view, and is sent SIGTERM while the stream
// still flows; every view it acknowledged is in view_count once it has stopped.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { registerAndLogin } from '../helpers/api.js';
import { asTestServer, startNode, testEnvironment } from '../helpers/server.js';
import { cleanUpChildren, listeningPort, startChild } from '../helpers/child-process.js';
import type { RunningService } from '../../service.js';
import { CONTENTS, publishedVideo } from './fixtures.js';

let cleanup: (() => Promise<void>) | null = null;
let node: RunningService | null = null;

afterAll(async () => {
  cleanUpChildren();
  await node?.close();
  await cleanup?.();
});

describe('a node stopped with SIGTERM mid-ingest', () => {
  it('should write every view it acknowledged before it exits', { timeout: 240_000 }, async () => {
    // Each anonymous viewer is its own address (through a trusted proxy's X-Forwarded-For).
    const environment = await testEnvironment({ VIDEO_WORKERS: '0', SCHEDULER_ENABLED: 'false', TRUST_PROXY: 'true' });
    cleanup = environment.cleanup;
    node = await startNode(environment.env);
    const owner = await registerAndLogin(asTestServer(node));
    // A 4 s video: 2 s watched (what a first report may claim) is over 30 % of it, a view at once.
    const contentId = await publishedVideo(asTestServer(node), owner, 4);
    await node.close();
    node = null;

    const doomed = startChild(['--import', 'tsx', 'main.ts'], { ...environment.env, LOG_LEVEL: 'info' });
    const url = `http://127.0.0.1:${await listeningPort(doomed)}`;
    const acknowledged = new Set<number>();
    let next = 0;
    let stopped = false;
    const sender = async () => {
      while (!stopped) {
        const viewer = next++;
        try {
          const res = await fetch(`${url}${CONTENTS}/${contentId}/views`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.${(viewer >> 16) & 255}.${(viewer >> 8) & 255}.${viewer & 255}` },
            body: JSON.stringify({ playback_id: randomUUID(), position: 2, watched: 2, source: 'feed' }),
          });
          const body = await res.json().catch(() => null);
          if (res.status === 200 && body?.data?.counted === true) acknowledged.add(viewer);
        } catch {
          // The node has stopped listening.
          if (doomed.child.exitCode !== null || doomed.child.signalCode !== null) return;
        }
      }
    };
    const senders = Array.from({ length: 16 }, sender);
    while (acknowledged.size < 300) await new Promise((r) => setTimeout(r, 20));
    doomed.child.kill('SIGTERM');
    expect(await doomed.exited).toBe(0);
    stopped = true;
    await Promise.all(senders);

    node = await startNode(environment.env);
    const [row] = await node.app.database.rows<{ view_count: number }>(sql`select view_count from contents where id = ${contentId}`);
    expect(row.view_count).toBe(acknowledged.size);
    const [day] = await node.app.database.rows<{ views: number; unique_viewers: number }>(sql`
      select sum(views)::int as views, sum(unique_viewers)::int as unique_viewers from content_view_days where content_id = ${contentId}`);
    expect(day).toEqual({ views: acknowledged.size, unique_viewers: acknowledged.size });
  });
});
