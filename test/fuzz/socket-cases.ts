// What the socket fuzz sends, made from the served AsyncAPI document (GET /api/v1/asyncapi.json):
// every namespace (channel) and every client event (`receive` operation) with its payload schema;
// fast-check generators for the arguments of an event (schema-shaped, broken in a few places, of
// the wrong kind, huge, binary, missing, with extra arguments, with or without an ack callback),
// for packets no client library sends, and for the moment a client goes away.
import fc from 'fast-check';
import { fuzzValue, hostileShortString, hostileValue, type JsonSchema, type KnownValues } from './arbitraries.js';

export interface SocketEvent {
  namespace: string;
  event: string;
  payload: JsonSchema;
}

/** The namespaces and client events of an AsyncAPI 3 document (realtime/asyncapi.ts). */
export function socketApi(doc: any): { namespaces: string[]; events: SocketEvent[] } {
  const last = (ref: string) => ref.split('/').pop()!;
  const namespaces = Object.values<any>(doc.channels).map((c) => c.address as string);
  const events: SocketEvent[] = [];
  for (const op of Object.values<any>(doc.operations)) {
    if (op.action !== 'receive') continue;
    const channel = doc.channels[last(op.channel.$ref)];
    const message = channel.messages[last(op.messages[0].$ref)];
    events.push({ namespace: channel.address, event: message.name, payload: message.payload });
  }
  return { namespaces, events };
}

/** One emit: its arguments (without the ack callback), and whether an ack is asked for. */
export interface EmitCase {
  args: unknown[];
  ack: boolean;
  transport: 'websocket' | 'polling';
}

const binary = fc.uint8Array({ maxLength: 2048 }).map((bytes) => Buffer.from(bytes));

export function emitCase(payload: JsonSchema, known: KnownValues): fc.Arbitrary<EmitCase> {
  const value = fuzzValue(payload, known);
  const args: fc.Arbitrary<unknown[]> = fc.oneof(
    { weight: 6, arbitrary: value.map((v): unknown[] => [v]) },
    { weight: 1, arbitrary: fc.constant<unknown[]>([]) },
    { weight: 1, arbitrary: fc.tuple(value, hostileValue, hostileValue).map((a): unknown[] => [...a]) },
    { weight: 1, arbitrary: binary.map((b): unknown[] => [b]) },
    { weight: 1, arbitrary: fc.tuple(value, binary).map(([v, b]): unknown[] => [{ ...(v && typeof v === 'object' ? v : { v }), file: b }]) },
    { weight: 1, arbitrary: fc.constantFrom<unknown[][]>([null], [0], ['x'], [[]], [true], [undefined]) },
  );
  return fc.record({
    args,
    // Mostly with an ack (its answer is checked), sometimes without.
    ack: fc.integer({ min: 0, max: 9 }).map((n) => n < 7),
    transport: fc.constantFrom<EmitCase['transport'][]>('websocket', 'polling'),
  });
}

/** Socket.IO packets (as Engine.IO message text) that a client library never sends, or binary junk. */
export function junkPacket(namespaces: string[]): fc.Arbitrary<string | Buffer> {
  const ns = fc.constantFrom(...namespaces);
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '',
        '4',
        '42',
        '42/chat',
        '42/chat,',
        '42/chat,[',
        '42/chat,{}',
        '42/chat,[]',
        '42/chat,[1]',
        '42/chat,["room:join"',
        '42/chat,1',
        '42/chat,99999999999999999999["room:join",{}]',
        '42/chat,-1["room:join",{}]',
        '42/chat,["disconnect"]',
        '42/chat,["connect"]',
        '42/chat,[{"a":1}]',
        '42/chat,[null]',
        '42/chat,[123,{}]',
        '40',
        '40/chat',
        '40/chat,"token"',
        '40/chat,[]',
        '40/chat,null',
        '40/chat,1',
        '40/chat,{"token":1}',
        '40/chat,{"token":null,"pid":1,"offset":{}}',
        '40/chat,{"pid":"x","offset":"y"}',
        '41/chat,',
        '41',
        '43/chat,1[{"ok":true}]',
        '43/chat,[]',
        '44/chat,{}',
        '44/chat,{"message":"x"}',
        '45/chat,1-["room:join",{"_placeholder":true,"num":0}]',
        '451-/chat,["room:join",{"_placeholder":true,"num":7}]',
        '46/chat,1-1[{"_placeholder":true,"num":0}]',
        '49/chat,',
        '4Z',
        '9',
        '1',
        '5',
        '6',
        '3probe',
        '2probe',
        '40/nope,{}',
        '40/chat/../feed,{}',
        '42/chat,["room:join",{"roomId":{"__proto__":{"admin":true}}}]',
      ),
    },
    { weight: 2, arbitrary: hostileShortString.map((s) => `4${s}`) },
    { weight: 2, arbitrary: fc.tuple(ns, hostileValue).map(([n, v]) => `42${n},${JSON.stringify(v) ?? ''}`) },
    { weight: 1, arbitrary: fc.tuple(ns, hostileValue).map(([n, v]) => `40${n},${JSON.stringify(v) ?? ''}`) },
    { weight: 1, arbitrary: fc.tuple(ns, fc.nat(), hostileShortString, hostileValue).map(([n, id, e, v]) => `42${n},${id}${JSON.stringify([e, v])}`) },
    { weight: 1, arbitrary: binary },
  );
}

/** When a client goes away: during the upgrade, after the open packet, after CONNECT, after its answer, after an emit. */
export type DropStep = 'upgrade' | 'open' | 'connect' | 'connected' | 'event';

export interface DropCase {
  step: DropStep;
  namespace: string;
  delayMs: number;
  /** A raw websocket cut (`terminate`) or closed, or a socket.io-client over long-polling closed. */
  how: 'terminate' | 'close' | 'polling';
}

export function dropCase(namespaces: string[]): fc.Arbitrary<DropCase> {
  return fc.record({
    step: fc.constantFrom<DropStep>('upgrade', 'open', 'connect', 'connect', 'connected', 'event', 'event'),
    namespace: fc.constantFrom(...namespaces),
    delayMs: fc.constantFrom(0, 0, 1, 2, 5, 10, 20),
    how: fc.constantFrom<DropCase['how'][]>('terminate', 'close', 'polling'),
  });
}
