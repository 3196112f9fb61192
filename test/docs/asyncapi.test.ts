// GET /api/v1/asyncapi.json: an AsyncAPI 3 document of every namespace and event, made from
// realtime/contract.ts (the namespace declarations). It passes the AsyncAPI parser with no error and no warning, lists every
// event of the contract in both directions with its ack, and what runs on a real socket (both
// transports) satisfies the schemas it gives.
import { Parser } from '@asyncapi/parser';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Socket } from 'socket.io-client';
import { useTestServer } from '../helpers/fixture.js';
import { ApiClient, registerAndLogin, type TestUser } from '../helpers/api.js';
import { connect, emitAck, nextEvent, type Transport } from '../realtime/socket-client.js';
import { realtimeContract } from '../../realtime/contract.js';
import { NAMESPACES } from '../../realtime/namespaces/index.js';
import { chatNamespace } from '../../realtime/namespaces/chat.js';

const booted = useTestServer();

let doc: any;
let headers: Headers;
beforeAll(async () => {
  const res = await new ApiClient(booted.url).get('/api/v1/asyncapi.json');
  expect(res.status).toBe(200);
  headers = res.headers;
  doc = JSON.parse(res.text);
});

const contractEntries = () =>
  Object.entries(realtimeContract).flatMap(([namespace, c]) => [
    ...Object.keys(c.client).map((event) => ({ namespace, event, direction: 'client' as const })),
    ...Object.keys(c.server).map((event) => ({ namespace, event, direction: 'server' as const })),
  ]);

/** The messages of the channel whose address is `namespace`. */
const channelOf = (namespace: string): [string, any] => {
  const found = Object.entries<any>(doc.channels).find(([, ch]) => ch.address === namespace);
  if (!found) throw new Error(`no channel for ${namespace}`);
  return found;
};

describe('AsyncAPI document', () => {
  it('is served as JSON with a validator', () => {
    expect(headers.get('content-type')).toMatch(/^application\/json/);
    expect(headers.get('etag')).toBeTruthy();
    expect(doc.asyncapi).toMatch(/^3\./);
  });

  it('passes the AsyncAPI parser with no error and no warning', async () => {
    const { document, diagnostics } = await new Parser().parse(JSON.stringify(doc));
    // Spectral severities: 0 error, 1 warning, 2 information, 3 hint.
    const problems = diagnostics.filter((d) => Number(d.severity) <= 1).map((d) => `${d.code} at ${d.path.join('.')}: ${d.message}`);
    expect(problems).toEqual([]);
    expect(document).toBeDefined();
    expect(document!.operations().length).toBe(contractEntries().length);
  });

  it('has a channel for every namespace with events, and an operation for every event in each direction', () => {
    for (const namespace of NAMESPACES.filter((n) => n in realtimeContract)) channelOf(namespace);
    for (const { namespace, event, direction } of contractEntries()) {
      const [channelId, channel] = channelOf(namespace);
      const message = Object.entries<any>(channel.messages).find(([, m]) => m.name === event);
      expect(message, `${namespace} ${event}`).toBeDefined();
      expect(message![1].payload, `${namespace} ${event}`).toBeTypeOf('object');
      const op = Object.values<any>(doc.operations).find((o) => o.channel.$ref === `#/channels/${channelId}` && o.title === event);
      expect(op, `${namespace} ${event}`).toBeDefined();
      expect(op.action).toBe(direction === 'client' ? 'receive' : 'send');
      expect(op.messages).toEqual([{ $ref: `#/channels/${channelId}/messages/${message![0]}` }]);
      if (direction === 'client') {
        const ackKey = op.reply.messages[0].$ref.split('/').pop();
        expect(channel.messages[ackKey].payload.oneOf).toHaveLength(2);
      } else {
        expect(op.reply).toBeUndefined();
      }
    }
  });

  it('gives the payload schema the handler validates with (message:send)', () => {
    const [, chat] = channelOf('/chat');
    const send = Object.values<any>(chat.messages).find((m) => m.name === 'message:send');
    expect(send.payload.required).toContain('roomId');
    expect(send.payload.properties.msg.maxLength).toBe(4000);
    expect(send.payload.properties.attachments.maxItems).toBe(10);
    expect(send.payload.additionalProperties).toBe(false);
  });

  it('points its server at this deployment, with the handshake token scheme', () => {
    const server: any = Object.values(doc.servers)[0];
    // PUBLIC_BASE_URL defaults to http://localhost:<PORT>.
    expect(server.host.split(':').pop()).toBe(new URL(booted.url).port);
    expect(server.protocol).toBe('ws');
    expect(server.pathname).toBe('/socket.io');
    expect(doc.components.securitySchemes.accessToken.scheme).toBe('bearer');
  });
});

describe.each<Transport>(['websocket', 'polling'])('what runs matches the contract (%s)', (transport) => {
  let alice: TestUser;
  let bob: TestUser;
  let roomId: string;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    alice = await registerAndLogin(booted.current);
    bob = await registerAndLogin(booted.current);
    const room = await alice.api.post('/sns/api/v1/chat/rooms', { memberIds: [bob.userId] });
    expect(room.status).toBe(201);
    roomId = room.body.data.roomId;
    return () => sockets.forEach((s) => s.close());
  });

  it('message:send ack and message:new satisfy their contract schemas', async () => {
    const aliceSocket = await connect(booted.url, '/chat', alice.token, transport);
    const bobSocket = await connect(booted.url, '/chat', bob.token, transport);
    sockets.push(aliceSocket, bobSocket);
    const chat = chatNamespace;
    const arrived = nextEvent(bobSocket, 'message:new', (m: any) => m.roomId === roomId, 20_000);
    const ack = await emitAck(aliceSocket, 'message:send', { roomId, msg: 'hello from the contract test' });
    expect(ack.ok).toBe(true);
    expect(chat.events['message:send'].ack.safeParse(ack.data).success).toBe(true);
    const pushed = await arrived;
    const parsed = chat.pushes['message:new'].payload.safeParse(pushed);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect(Object.keys(pushed).sort()).toEqual(Object.keys(chat.pushes['message:new'].payload.shape).sort());
  });

  it('a bad payload is refused with the AckError the document describes', async () => {
    const socket = await connect(booted.url, '/chat', alice.token, transport);
    sockets.push(socket);
    const ack = await emitAck(socket, 'room:join', { roomId: 42 });
    expect(ack).toMatchObject({ ok: false, error_code: expect.stringMatching(new RegExp(doc.components.schemas.AckError.properties.error_code.pattern)) });
    const other = await emitAck(socket, 'room:join', { roomId: '00000000-0000-4000-8000-000000000000' });
    expect(other.ok).toBe(false);
  });
});
