// Taking one's data (CONTRACT §22) over the real server: one export a day, made by the job, read
// back with an independent ZIP reader (yauzl): every kind of record is there; only the owner's
// bearer token gets the status and the file; an expired export is gone.
import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import yauzl from 'yauzl';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { CONTENT, publish } from '../content/fixtures.js';
import { topUp } from '../campaigns/fixtures.js';
import { EXPORT_FILES } from '../../src/leaving/export.js';
import { storedMedia } from '../helpers/stored-media.js';

const EXPORT = '/auth/api/v1/user/export';
const SNS = '/sns/api/v1';
const booted = useTestServer({ SCHEDULER_ENABLED: 'false', VIDEO_WORKERS: '0' });
let server: TestServer;
let alice: TestUser;
let bob: TestUser;
beforeAll(async () => {
  server = booted.current;
  [alice, bob] = [await registerAndLogin(server, { given_name: 'Alice', family_name: 'Export' }), await registerAndLogin(server)];
});

function unzip(buffer: Buffer): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('no zip'));
      const files = new Map<string, string>();
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            files.set(entry.fileName, Buffer.concat(chunks).toString('utf8'));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(files));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

async function untilReady(user: TestUser, id: string, timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await user.api.get(`${EXPORT}/${id}`);
    expect(res.status, res.text).toBe(200);
    if (res.body.data.status === 'ready') return res.body.data;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the export was never ready');
}

const download = (url: string, token: string | null) => fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('data export: refusals', () => {
  it('should answer 401 without a token, and 400 to an id that is not one', async () => {
    const anonymous = new ApiClient(server.url);
    expectErrorEnvelope(await anonymous.post(EXPORT), 401);
    expectErrorEnvelope(await anonymous.get(`${EXPORT}/00000000-0000-4000-8000-000000000000`), 401);
    expect((await download(`${server.url}${EXPORT}/00000000-0000-4000-8000-000000000000/download`, null)).status).toBe(401);
    expectErrorEnvelope(await alice.api.get(`${EXPORT}/not-an-id`), 400);
    expectErrorEnvelope(await alice.api.get(`${EXPORT}/00000000-0000-4000-8000-000000000000`), 404);
  });
});

describe('data export: the ZIP', () => {
  it('should make a ZIP of every kind of record, for its owner only, once a day', { timeout: 90_000 }, async () => {
    // Alice's records of each kind.
    const item = await publish(server, alice);
    const bobItem = await publish(server, bob);
    expect((await alice.api.post(`${SNS}/comments`, { contentId: bobItem, msg: 'Exported comment' })).status).toBe(201);
    expect((await alice.api.post(`/api/v1/content/${bobItem}/reactions`, {})).status).toBeLessThan(300);
    const room = await alice.api.post(`${SNS}/chat/rooms`, { memberIds: [bob.userId] });
    expect((await alice.api.post(`${SNS}/chat/messages`, { roomId: room.body.data.roomId, msg: 'Exported message' })).status).toBe(201);
    expect((await alice.api.post(`/auth/api/v1/users/${bob.userId}/follow`, undefined, { headers: { 'x-user-id': alice.userId } })).status).toBe(200);
    expect((await bob.api.post(`/auth/api/v1/users/${alice.userId}/follow`, undefined, { headers: { 'x-user-id': bob.userId } })).status).toBe(200);
    expect((await alice.api.post(`${CONTENT}/saved-searches`, { name: 'exported search', filters: { search: 'river' }, notify: 'off' })).status).toBe(201);
    expect((await alice.api.put('/content/api/v1/user/settings', { privacy: { session_timeout: 30 } })).status).toBe(200);
    await topUp(alice, 50_000);

    const asked = await alice.api.post(EXPORT);
    expect(asked.status, asked.text).toBe(202);
    expect(asked.body.data).toEqual({ export_id: expect.any(String), status: 'pending' });
    const id: string = asked.body.data.export_id;
    // One a day: the second is refused with when to come back.
    const again = await alice.api.post(EXPORT);
    expectErrorEnvelope(again, 429, 'export.error.daily_limit');
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(3600);
    // Nobody else learns of it.
    expectErrorEnvelope(await bob.api.get(`${EXPORT}/${id}`), 404);

    const ready = await untilReady(alice, id);
    expect(ready.url).toBe(`${server.service.config.publicBaseUrl}${EXPORT}/${id}/download`);
    const url = `${server.url}${EXPORT}/${id}/download`;
    expect(Date.parse(ready.expires_at) - Date.now()).toBeGreaterThan(23 * 3600 * 1000);
    // Told by an export.ready notification.
    const inbox = (await alice.api.get(`${SNS}/notifications`)).body.data.notifications as any[];
    expect(inbox.find((n) => n.type === 'export.ready')).toMatchObject({ actor: null, subject: { type: 'export', id }, data: { export_id: id } });

    // Only the owner's bearer token gets the file.
    expect((await download(url, null)).status).toBe(401);
    const other = await download(url, bob.token);
    expect(other.status).toBe(404);
    expect((await other.json()).error_code).toBe('export.error.not_found');
    const res = await download(url, alice.token);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    const files = await unzip(Buffer.from(await res.arrayBuffer()));
    expect([...files.keys()].sort()).toEqual([...EXPORT_FILES].sort());
    const json = (name: string) => JSON.parse(files.get(name)!);
    expect(json('profile.json')).toMatchObject({ id: alice.userId, username: alice.username, phone_number: alice.phone, given_name: 'Alice' });
    expect(files.get('profile.json')).not.toContain('password');
    expect(json('settings.json').privacy.session_timeout).toBe(30);
    expect(json('sessions.json').map((s: any) => s.id)).toContain(alice.sessionId);
    expect(files.get('sessions.json')).not.toContain('refresh_token_hash');
    expect(files.get('sessions.json')).not.toContain(alice.refreshToken);
    const content = json('content.json');
    expect(content.map((c: any) => c.id ?? c._id)).toEqual([item]);
    expect(JSON.stringify(content)).toContain(`${server.service.config.publicBaseUrl}/media/`);
    expect(json('comments.json').map((c: any) => c.msg)).toEqual(['Exported comment']);
    expect(json('messages.json').map((m: any) => m.msg)).toEqual(['Exported message']);
    expect(json('follows.json')).toMatchObject({ following: [{ user_id: bob.userId }], followers: [{ user_id: bob.userId }] });
    expect(Array.isArray(json('blocks.json'))).toBe(true);
    expect(json('reactions.json').content.map((r: any) => r.content_id)).toEqual([bobItem]);
    expect(json('saved_searches.json').map((s: any) => s.name)).toEqual(['exported search']);
    expect(json('notifications.json').some((n: any) => n.type === 'follow' && n.actor_id === bob.userId)).toBe(true);
    expect(json('payments.json').payments).toHaveLength(1);
    expect(json('payments.json').ledger).toHaveLength(1);
    expect(Array.isArray(json('campaigns.json'))).toBe(true);
    // Nothing of Bob's own records (his comment, his saved searches) is in Alice's export.
    expect(files.get('comments.json')).not.toContain(bob.userId);

    // Past its 24 hours it expires: the status says so, the file is gone.
    const db = server.service.app.database;
    await db.rows(sql`update data_exports set expires_at = now() - interval '1 second' where id = ${id}`);
    expect((await alice.api.get(`${EXPORT}/${id}`)).body.data).toEqual({ export_id: id, status: 'expired' });
    expect((await download(url, alice.token)).status).toBe(404);
    const [row] = await db.rows<{ file_path: string }>(sql`select file_path from data_exports where id = ${id}`);
    const stored = storedMedia(server.service);
    expect(await stored.exists(row.file_path)).toBe(true);
    // The export file is never served as media.
    expect((await fetch(`${server.url}/media/${row.file_path}`)).status).toBe(404);
    expect(await server.service.services.dataExports.expireDue()).toBe(1);
    expect(await stored.exists(row.file_path)).toBe(false);
  });
});
