// A node starting from a snapshot of the listed rows (docs/search.md, "Start from a snapshot"):
// node A loads from the database and writes a snapshot; items change after it (through the API,
// and straight in the database as a bulk write or a suspension would, heard by nobody); node B
// starts from the snapshot, with more changes made while it loads (its catch-up held back), and
// must answer the same `/all` and `/completed` pages as node C, which loads every row from the
// database. A snapshot that cannot be read falls back to the full load. Nodes run one after the
// other on the same storage, so the test runs in both modes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { RunningService } from '../../service.js';
import { ApiClient, registerAndLogin, type TestUser } from '../helpers/api.js';
import { asTestServer, startNode, testEnvironment } from '../helpers/server.js';
import { CONTENT, fullBody, publish } from './fixtures.js';
import { indexReady } from './search.fixtures.js';

/** Chunks of a few rows, so that the items below span several. */
const CHUNK_ROWS = 3;

/** The node's /metrics text. */
const metricsOf = async (node: RunningService): Promise<string> => (await fetch(`${node.url}/metrics`)).text();

async function waitForMetric(node: RunningService, pattern: RegExp): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (pattern.test(await metricsOf(node))) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${node.url}/metrics never matched ${pattern}`);
}

describe('a node started from a snapshot of the listed rows', () => {
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  let node: RunningService | null = null;
  const tag = `s${randomBytes(3).toString('hex')}`;

  const start = async (overrides: Record<string, string> = {}, beforeCatchUp?: Promise<void>): Promise<RunningService> => {
    node = await startNode({ ...env, ...overrides }, { listingSnapshot: { chunkRows: CHUNK_ROWS, beforeCatchUp } });
    return node;
  };
  const stop = async (): Promise<void> => {
    await node?.close();
    node = null;
  };

  beforeAll(async () => {
    ({ env, cleanup } = await testEnvironment());
  });
  afterAll(async () => {
    await stop();
    await cleanup?.();
  });

  /** The pages compared between nodes: several searches, orders, pages, filters and facets, and `/completed`. */
  async function pagesOf(target: RunningService): Promise<unknown[]> {
    const client = new ApiClient(target.url);
    const queries = [
      `/all?per_page=4&page=1&facets=amenities,apartment_type,project_status,price`,
      `/all?per_page=4&page=2&column=price&sort=asc`,
      `/all?per_page=4&page=3&column=reaction_count&sort=desc`,
      `/all?per_page=5&search=${tag}&column=relevance`,
      `/all?per_page=5&search=riverside&column=area&sort=asc&facets=price`,
      `/all?per_page=50&amenities=gym&price_from=1000000`,
      `/completed?per_page=50`,
      `/completed?per_page=5&page=2&latitude=10.7&longitude=106.7`,
    ];
    const answers: unknown[] = [];
    for (const query of queries) {
      const res = await client.get(`${CONTENT}${query}`);
      expect(res.status, `${query}: ${res.text}`).toBe(200);
      // Media URLs name the node's own port.
      answers.push({ query, body: JSON.parse(JSON.stringify(res.body).replaceAll(target.config.publicBaseUrl, 'NODE')) });
    }
    return answers;
  }

  const ids = async (target: RunningService, query: string): Promise<string[]> => {
    const res = await new ApiClient(target.url).get(`${CONTENT}/all?per_page=100&${query}`);
    expect(res.status, res.text).toBe(200);
    return res.body.data.item.map((i: { id: string }) => i.id);
  };

  it('should answer the same pages as a node loaded from the database, with the changes made after the snapshot and while it loaded', async () => {
    // Items, written through a first node.
    let a = await start();
    let owner: TestUser = await registerAndLogin(asTestServer(a));
    let other: TestUser = await registerAndLogin(asTestServer(a));
    const body = (name: string, price: number, extra: Record<string, unknown> = {}) =>
      fullBody({ price, content_info: [{ lang: 'en', project_name: `${name} ${tag}`, description: 'Riverside', address: 'District 7' }], ...extra });
    const items: string[] = [];
    for (let i = 0; i < 8; i++) items.push(await publish(asTestServer(a), owner, body(`Item${i}`, 1_000_000_000 + i * 7_000_000, { area: 40 + i })));
    const othersItems: string[] = [];
    for (let i = 0; i < 3; i++) othersItems.push(await publish(asTestServer(a), other, body(`Other${i}`, 2_000_000_000 + i, { amenities: ['gym'] })));
    await stop();

    // Node A: nothing to start from, it loads from the database, then writes the snapshot.
    a = await start();
    await indexReady(asTestServer(a));
    await waitForMetric(a, /^listing_snapshots_written 1$/m);
    expect(await metricsOf(a)).toMatch(/^listing_index_load_seconds\{source="database"\} /m);
    const server = asTestServer(a);
    owner = { ...owner, api: new ApiClient(a.url, owner.token) };
    other = { ...other, api: new ApiClient(a.url, other.token) };

    // After the snapshot: an edit, a delete, a new item, through the API...
    const edit = await owner.api.put(`/api/v1/content/${items[0]}`, {
      price: 9_000_000_000,
      area: 99,
      location: { latitude: 10.8, longitude: 106.7 },
      languages: { en: { projectName: `Edited ${tag}`, description: 'x', address: 'y' } },
    });
    expect(edit.status, edit.text).toBe(200);
    expect((await owner.api.delete(`/api/v1/content/${items[1]}`)).status).toBe(200);
    const added = await publish(server, owner, body('Added', 1_500_000_000));
    // ...and in the database, heard by no node: reactions counted in bulk, the other uploader
    // suspended (what a suspension writes: their items held), the owner renamed.
    const db = a.app.database;
    await db.rows(sql`update contents set reaction_count = 42 where id = ${items[2]}`);
    await db.rows(sql`update contents set suspension_hold = true where uploader_id = ${other.userId}`);
    await db.rows(sql`update users set given_name = 'Renamed' where id = ${owner.userId}`);
    await stop();

    // Node B starts from the snapshot; its catch-up waits while more changes are made.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const b = await start({}, held);
    const ownerOnB: TestUser = { ...owner, api: new ApiClient(b.url, owner.token) };
    // Heard by B while it loads: an item deleted, an item new.
    expect((await ownerOnB.api.delete(`/api/v1/content/${items[3]}`)).status).toBe(200);
    const addedWhileLoading = await publish(asTestServer(b), ownerOnB, body('Loading', 1_600_000_000));
    // Not heard: a price changed in the database.
    await b.app.database.rows(sql`update contents set price = 1 where id = ${items[4]}`);
    expect(b.services.listingIndex.ready()).toBe(false);
    release();
    await indexReady(asTestServer(b));
    const metricsB = await metricsOf(b);
    expect(metricsB).toMatch(/^listing_index_load_seconds\{source="snapshot"\} /m);
    // Reloaded: the edited, reacted, renamed-uploader, repriced and new items; dropped: the deleted and held ones.
    expect(Number(/^listing_index_catch_up_rows\{action="reloaded"\} (\d+)/m.exec(metricsB)?.[1])).toBeGreaterThanOrEqual(5);
    expect(Number(/^listing_index_catch_up_rows\{action="dropped"\} (\d+)/m.exec(metricsB)?.[1])).toBeGreaterThanOrEqual(4);

    const listed = await ids(b, `search=${tag}`);
    expect(listed).toContain(added);
    expect(listed).toContain(addedWhileLoading);
    for (const gone of [items[1], items[3], ...othersItems]) expect(listed).not.toContain(gone);
    const edited = await new ApiClient(b.url).get(`${CONTENT}/all?search=edited%20${tag}`);
    expect(edited.body.data.item.map((i: { id: string; price: number }) => [i.id, i.price])).toEqual([[items[0], 9_000_000_000]]);
    expect((await ids(b, 'column=price&sort=asc&per_page=1'))[0]).toBe(items[4]);
    expect((await ids(b, 'column=reaction_count&sort=desc&per_page=1'))[0]).toBe(items[2]);
    const pagesB = await pagesOf(b);
    expect(JSON.stringify(pagesB)).toContain('Renamed');
    await stop();

    // Node C loads every row from the database: the same answers.
    const c = await start({ LISTING_SNAPSHOT_MINUTES: '0' });
    await indexReady(asTestServer(c));
    expect(await metricsOf(c)).toMatch(/^listing_index_load_seconds\{source="database"\} /m);
    expect(await pagesOf(c)).toEqual(pagesB);

    // A snapshot that cannot be read (its bytes damaged) is left for the full load.
    await c.app.database.rows(sql`update listing_snapshot_chunks set bytes = '\\x00010203'::bytea where seq = 1`);
    await stop();
    const d = await start();
    await indexReady(asTestServer(d));
    expect(await metricsOf(d)).toMatch(/^listing_index_load_seconds\{source="database"\} /m);
    expect(await pagesOf(d)).toEqual(pagesB);
  }, 240_000);
});
