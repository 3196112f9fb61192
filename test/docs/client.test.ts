// The typed client in clients/typescript: regenerated in memory from the documents this server
// serves, it must equal the checked-in files (so it can never drift from the server); its example
// typechecks, a misuse does not; and the REST wrapper works against the real server.
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { ApiClient, registerAndLogin } from '../helpers/api.js';
import { CLIENT_DIR, generateClientFiles } from '../../scripts/generate-client.js';
import { createRestClient } from '../../clients/typescript/index.js';

const run = promisify(execFile);
const booted = useTestServer();
const TSC = path.resolve('node_modules/.bin/tsc');

let openapi: any;
let asyncapi: any;
beforeAll(async () => {
  const api = new ApiClient(booted.url);
  openapi = (await api.get('/api/v1/openapi.json')).body;
  asyncapi = (await api.get('/api/v1/asyncapi.json')).body;
});

/** tsc's diagnostics for a project (empty when it typechecks). */
async function typecheck(project: string): Promise<string[]> {
  const { stdout } = await run(TSC, ['-p', project, '--pretty', 'false'], { maxBuffer: 16 * 1024 * 1024 }).catch((err: { stdout?: string }) => ({
    stdout: err.stdout ?? '',
  }));
  return stdout.split('\n').filter((line) => /error TS\d+/.test(line));
}

describe('the typed client', () => {
  it('is what the generator makes from the served documents (no drift)', { timeout: 60_000 }, async () => {
    const files = await generateClientFiles(openapi, asyncapi);
    expect(Object.keys(files).sort()).toEqual(['events.d.ts', 'rest.d.ts']);
    for (const [name, content] of Object.entries(files)) {
      const checkedIn = fs.readFileSync(path.join(CLIENT_DIR, name), 'utf8');
      // On a difference: run `npm run client:generate` and commit the result.
      expect(checkedIn === content, `clients/typescript/${name} is stale: run npm run client:generate`).toBe(true);
    }
    // Every event of the AsyncAPI document is in the maps, every path in the REST types.
    for (const message of Object.values<any>(asyncapi.channels).flatMap((c) => Object.values<any>(c.messages))) {
      if (!message.name.endsWith(' ack')) expect(files['events.d.ts']).toContain(`'${message.name}': (payload`);
    }
    for (const p of Object.keys(openapi.paths)) expect(files['rest.d.ts']).toContain(`"${p}": {`);
  });

  it('typechecks its example; a misuse fails to typecheck', { timeout: 120_000 }, async () => {
    expect(await typecheck(path.join(CLIENT_DIR, 'tsconfig.json'))).toEqual([]);

    const dir = path.resolve('.tmp/client-misuse');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'misuse.ts'),
      [
        "import { io, type Socket } from 'socket.io-client';",
        `import { createRestClient, type ClientEventsOf, type ServerEventsOf } from '${path.join(CLIENT_DIR, 'index.js')}';`,
        "const api = createRestClient({ baseUrl: 'http://localhost' });",
        "void api.GET('/sns/api/v1/no-such-path');", // line 4: unknown path
        "void api.POST('/sns/api/v1/chat/rooms', { body: { memberIds: 'not-an-array' } });", // line 5: wrong body type
        "const chat: Socket<ServerEventsOf<'/chat'>, ClientEventsOf<'/chat'>> = io('http://localhost/chat');",
        "chat.emit('message:send', { room: 'x' }, () => undefined);", // line 7: wrong payload
        "chat.on('message:new', (m) => m.no_such_field);", // line 8: unknown field
        '',
      ].join('\n'),
    );
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ extends: path.join(CLIENT_DIR, 'tsconfig.json'), compilerOptions: { skipLibCheck: true }, files: ['misuse.ts'] }),
    );
    const errors = await typecheck(dir);
    const lines = new Set(errors.filter((e) => e.includes('misuse.ts')).map((e) => Number(/misuse\.ts\((\d+),/.exec(e)?.[1])));
    expect([...lines].sort()).toEqual([4, 5, 7, 8]);
  });

  it('talks to the real server with typed answers and the error envelope', async () => {
    const user = await registerAndLogin(booted.current);
    const other = await registerAndLogin(booted.current);
    const api = createRestClient({ baseUrl: booted.url, token: user.token });
    const created = await api.POST('/sns/api/v1/chat/rooms', { body: { memberIds: [other.userId] } });
    expect(created.response.status).toBe(201);
    const rooms = await api.GET('/sns/api/v1/chat/rooms', { params: { query: { limit: 5 } } });
    expect(rooms.response.status).toBe(200);
    expect(rooms.data?.data.rooms.map((r) => r.roomId)).toContain(created.data?.data.roomId);

    const anonymous = createRestClient({ baseUrl: booted.url });
    const refused = await anonymous.GET('/sns/api/v1/chat/rooms', {});
    expect(refused.response.status).toBe(401);
    expect(refused.error).toMatchObject({ success: false, error_code: expect.stringMatching(/^auth\.error\./) });
  });
});
