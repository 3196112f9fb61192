// The AsyncAPI 3 document of the Socket.IO API, made from realtime/contract.ts (a view of the
// namespace declarations, realtime/namespaces/*.ts): one channel per namespace, one `receive`
// operation per client event (its ack as the operation's reply) and one `send` operation per
// server event, with payload schemas from the zod schemas the server validates with. Served at GET /api/v1/asyncapi.json (http/docs-pages.ts).
import { z } from 'zod';
import { realtimeContract, type NamespaceContract } from './contract.js';

type JsonSchema = Record<string, unknown>;

/** zod → JSON Schema draft-07 (what AsyncAPI's schema format is built on). */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: 'draft-07', io, unrepresentable: 'any', cycles: 'throw' }) as JsonSchema;
  return rest;
}

/** `room:join` → `roomJoin` (AsyncAPI keys allow letters, digits, `.`, `-`, `_`). */
const camel = (name: string): string =>
  name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1)))
    .join('');

/** `/chat` → `chat`. */
const channelId = (namespace: string): string => camel(namespace) || 'root';

const ref = (pointer: string) => ({ $ref: pointer });

function ackSchema(data: z.ZodType | null): JsonSchema {
  const success: JsonSchema = data
    ? { type: 'object', required: ['ok', 'data'], properties: { ok: { const: true }, data: jsonSchema(data, 'output') } }
    : { type: 'object', required: ['ok'], properties: { ok: { const: true } } };
  return { oneOf: [success, ref('#/components/schemas/AckError')] };
}

function namespaceParts(namespace: string, contract: NamespaceContract) {
  const channel = channelId(namespace);
  const channelRef = ref(`#/channels/${channel}`);
  const messages: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};

  for (const [event, entry] of Object.entries(contract.client)) {
    const key = camel(event);
    messages[key] = {
      name: event,
      title: event,
      summary: entry.summary,
      contentType: 'application/json',
      payload: jsonSchema(entry.payload, 'input'),
    };
    messages[`${key}Ack`] = {
      name: `${event} ack`,
      title: `${event} (ack)`,
      summary: entry.ack
        ? `The acknowledgement of \`${event}\`: \`{ok: true, data}\` or \`{ok: false, error_code, message}\`.`
        : `The acknowledgement of \`${event}\`: \`{ok: true}\` or \`{ok: false, error_code, message}\`.`,
      contentType: 'application/json',
      payload: ackSchema(entry.ack),
    };
    operations[`${channel}${key[0].toUpperCase()}${key.slice(1)}`] = {
      action: 'receive',
      channel: channelRef,
      title: event,
      summary: entry.summary,
      description: `Client emits \`${event}\` on \`${namespace}\` with an acknowledgement callback.`,
      messages: [ref(`#/channels/${channel}/messages/${key}`)],
      reply: { channel: channelRef, messages: [ref(`#/channels/${channel}/messages/${key}Ack`)] },
    };
  }

  for (const [event, entry] of Object.entries(contract.server)) {
    const key = camel(event);
    messages[key] = { name: event, title: event, summary: entry.summary, contentType: 'application/json', payload: jsonSchema(entry.payload, 'output') };
    operations[`${channel}${key[0].toUpperCase()}${key.slice(1)}`] = {
      action: 'send',
      channel: channelRef,
      title: event,
      summary: entry.summary,
      description: `Server emits \`${event}\` on \`${namespace}\`.`,
      messages: [ref(`#/channels/${channel}/messages/${key}`)],
    };
  }

  return {
    channel,
    channelObject: {
      address: namespace,
      title: `Namespace ${namespace}`,
      description: contract.description,
      messages,
    },
    operations,
  };
}

export function buildAsyncApiDocument(publicBaseUrl: string): Record<string, unknown> {
  const base = new URL(publicBaseUrl);
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  for (const [namespace, contract] of Object.entries(realtimeContract)) {
    const parts = namespaceParts(namespace, contract);
    channels[parts.channel] = parts.channelObject;
    Object.assign(operations, parts.operations);
  }
  return {
    asyncapi: '3.1.0',
    info: {
      title: 'Real-estate video content service: realtime events',
      version: '1.0.0',
      description:
        'Socket.IO v4 on the same port as the REST API (path `/socket.io`; long-polling first, then a WebSocket upgrade). ' +
        'Each channel is a namespace: `io(url + "/chat", { auth: { token: "<AccessToken>" } })`. A missing, bad, expired or revoked token ' +
        'fails the connection with the error message `unauthorized` (`err.data.error_code` says why). Client events take an ' +
        "acknowledgement callback (the operation's reply); every payload is validated and a bad one is answered " +
        '`{ok: false, error_code: "validation.error.*", message}`; an event the namespace does not have is answered ' +
        "`realtime.error.unknown_event`. Every client event counts against the caller's general rate limit (shared with REST; " +
        'past it: `{ok: false, error_code: "rate_limit.error.exceeded", message}`). One user holds at most 20 connections per node ' +
        '(a connection carries one socket per namespace); the next fails with the error message `too_many_connections`. ' +
        'Events reach every socket in their room on every node, and a ' +
        'client that reconnects within 2 minutes with a valid token of the same session gets the events it missed ' +
        '(`socket.recovered`). The root namespace `/` accepts the same authenticated connections but carries no events.',
      license: { name: 'Proprietary: all rights reserved; for the apps of the platform' },
    },
    defaultContentType: 'application/json',
    servers: {
      service: {
        host: base.host,
        protocol: base.protocol === 'https:' ? 'wss' : 'ws',
        pathname: '/socket.io',
        title: 'This deployment',
        description: 'Socket.IO (Engine.IO 4) endpoint of PUBLIC_BASE_URL; HTTP long-polling uses the same path.',
        security: [ref('#/components/securitySchemes/accessToken')],
      },
    },
    channels,
    operations,
    components: {
      securitySchemes: {
        accessToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'The AccessToken of POST /auth/api/v1/login, sent in the handshake as `auth: {token}` (or an `Authorization: Bearer` header).',
        },
      },
      schemas: {
        AckError: {
          type: 'object',
          required: ['ok', 'error_code', 'message'],
          properties: {
            ok: { const: false },
            error_code: { type: 'string', pattern: '^[a-z_]+\\.error\\.[a-z_]+$', examples: ['chat.error.not_member'] },
            message: { type: 'string' },
            details: { type: 'object', required: ['field', 'constraint'], properties: { field: { type: 'string' }, constraint: { type: 'string' } } },
          },
        },
      },
    },
  };
}
