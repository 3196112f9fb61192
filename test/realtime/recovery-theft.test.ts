// A Socket.IO session is recovered only for a handshake whose token belongs to the same user and
// a live session (CONTRACT §19). Alice's connection drops; while she is away, events are made
// for her, and thieves present her recovery id and offset (pid, offset): with Bob's token, with
// no token, with a garbage token, and as a socket.io-client that holds her recovery state. Each
// starts fresh (or is refused) and gets none of her missed or live events. Then Alice's own
// reconnect still recovers, with every missed event once. On one node, and (server mode) with
// the thieves and Alice's reconnect on a second node.
import { afterEach, describe, expect, it } from 'vitest';
import { io, type Socket } from 'socket.io-client';
import type { TestServer } from '../helpers/server.js';
import { useTestServer } from '../helpers/fixture.js';
import { registerAndLogin, type TestUser } from '../helpers/api.js';
import { closeAll, connect, type Transport } from './socket-client.js';
import { until } from './recovering-client.js';
import { RawEngine } from './raw-engine.js';
import { useTwoNodesInProcess } from '../helpers/nodes.js';

const serverMode = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);
const SNS = '/sns/api/v1';

interface Nodes {
  server: TestServer;
  /** Where Alice first connects. */
  first: string;
  /** Where the thieves connect and Alice comes back. */
  second: string;
}

/** An event for one user on one namespace, and a check that a payload is one of those events. */
interface Stream {
  namespace: '/notifications' | '/chat';
  event: string;
  /** Makes one event for the victim (through the first node's REST API); answers its key. */
  make(): Promise<string>;
  /** Makes one event for the thief alone, to know that everything sent before it has arrived. */
  sentinel(): Promise<string>;
  key: (payload: any) => string;
}

async function streams(server: TestServer, alice: TestUser, thief: TestUser, carol: TestUser): Promise<Stream[]> {
  const room = (await carol.api.post(`${SNS}/chat/rooms`, { memberIds: [alice.userId], name: 'with alice' })).body.data;
  // Made before the thief connects, so the thief's socket is in it from the handshake on.
  const thiefRoom = (await carol.api.post(`${SNS}/chat/rooms`, { memberIds: [thief.userId], name: 'with the thief' })).body.data;
  const follow = async (of: TestUser) => {
    const follower = await registerAndLogin(server);
    const res = await follower.api.post(`/auth/api/v1/users/${of.userId}/follow`, undefined, { headers: { 'x-user-id': follower.userId } });
    expect(res.status).toBe(200);
    return follower.userId;
  };
  const post = async (roomId: string, msg: string) => {
    const res = await carol.api.post(`${SNS}/chat/messages`, { roomId, msg });
    expect(res.status).toBe(201);
    return res.body.data._id as string;
  };
  return [
    { namespace: '/notifications', event: 'follow:new', make: () => follow(alice), sentinel: () => follow(thief), key: (p) => p.follower_id },
    {
      namespace: '/chat',
      event: 'message:new',
      make: () => post(room.roomId, 'for alice'),
      sentinel: () => post(thiefRoom.roomId, 'for the thief'),
      key: (p) => p._id,
    },
  ];
}

/** The events of `event` in raw packets of `namespace`. */
function eventsIn(packets: string[], namespace: string, event: string): unknown[] {
  const prefix = `42${namespace},`;
  return packets
    .filter((p) => p.startsWith(prefix))
    .map((p) => JSON.parse(p.slice(prefix.length)))
    .filter((args) => args[0] === event)
    .map((args) => args[1]);
}

async function stolenRecovery(nodes: Nodes, transport: Transport): Promise<void> {
  const { server } = nodes;
  const alice = await registerAndLogin(server);
  const bob = await registerAndLogin(server);
  const carol = await registerAndLogin(server);

  for (const stream of await streams(server, alice, bob, carol)) {
    const { namespace, event } = stream;
    const victim = await connect(nodes.first, namespace, alice.token, transport);
    const got: string[] = [];
    victim.on(event, (p: unknown) => got.push(stream.key(p)));
    // recovery:ready gives her an offset; her recovery state is what a thief would copy.
    await until(() => typeof Reflect.get(victim, '_lastOffset') === 'string', 10_000, 'a recovery offset');
    const before = await stream.make();
    await until(() => got.includes(before), 10_000, 'the event before the drop');
    const pid = Reflect.get(victim, '_pid') as string;
    const offset = Reflect.get(victim, '_lastOffset') as string;
    const sid = victim.id;
    expect(pid).toEqual(expect.any(String));

    victim.io.engine.close(); // a network drop: the session is kept for recovery
    await until(() => !victim.connected, 10_000, 'the drop');
    const missed = [await stream.make()];

    // Thieves on the second node, raw: exactly what the server writes to them is seen.
    const asBob = await RawEngine.open(nodes.second);
    asBob.connect(namespace, { token: bob.token, pid, offset });
    const bobAnswer = await asBob.connected(namespace);
    expect(bobAnswer).toMatch(new RegExp(`^40${namespace},`));
    const bobSession = JSON.parse(bobAnswer.slice(`40${namespace},`.length));
    expect(bobSession.sid).not.toBe(sid);
    expect(bobSession.pid).not.toBe(pid);

    for (const auth of [
      { pid, offset },
      { token: 'garbage', pid, offset },
      { token: `${alice.token}x`, pid, offset },
    ]) {
      const thief = await RawEngine.open(nodes.second);
      thief.connect(namespace, auth);
      expect(await thief.connected(namespace)).toMatch(new RegExp(`^44${namespace},\\{"message":"unauthorized"`));
      expect(eventsIn(thief.packets(), namespace, event)).toEqual([]);
      thief.drop();
    }

    // A socket.io-client that holds her recovery state, as a stolen phone's app would.
    const copy: Socket = io(nodes.second + namespace, {
      transports: [transport],
      auth: { token: bob.token },
      forceNew: true,
      reconnection: false,
      autoConnect: false,
    });
    Reflect.set(copy, '_pid', pid);
    Reflect.set(copy, '_lastOffset', offset);
    const copyGot: unknown[] = [];
    copy.on(event, (p: unknown) => copyGot.push(p));
    await new Promise<void>((resolve, reject) => {
      copy.once('connect', () => resolve());
      copy.once('connect_error', reject);
      copy.connect();
    });
    expect(copy.recovered).toBe(false);
    expect(copy.id).not.toBe(sid);

    // A live event for her, while the thieves are connected, then one for Bob: once Bob's has
    // reached them, hers would have too.
    missed.push(await stream.make());
    const mark = await stream.sentinel();
    await until(() => eventsIn(asBob.packets(), namespace, event).some((p) => stream.key(p) === mark), 10_000, 'the sentinel on the raw thief');
    await until(() => copyGot.some((p) => stream.key(p) === mark), 10_000, 'the sentinel on the copied client');
    expect(eventsIn(asBob.packets(), namespace, event).map(stream.key)).toEqual([mark]);
    expect(copyGot.map(stream.key)).toEqual([mark]);
    asBob.drop();
    copy.close();

    // Alice comes back (on the second node) with her own token: recovered, each missed event once.
    Reflect.set(victim.io, 'uri', nodes.second);
    await new Promise<void>((resolve, reject) => {
      victim.once('connect', () => resolve());
      victim.once('connect_error', reject);
      victim.connect();
    });
    expect(victim.recovered).toBe(true);
    expect(victim.id).toBe(sid);
    await until(() => missed.every((k) => got.includes(k)), 10_000, 'the missed events');
    const after = await stream.make();
    await until(() => got.includes(after), 10_000, 'a live event after the recovery');
    expect(got).toEqual([before, ...missed, after]);
    victim.close();
  }
}

describe.each(['websocket', 'polling'] as Transport[])('a stolen recovery id over %s', (transport) => {
  describe('on one node', () => {
    const booted = useTestServer();
    afterEach(() => closeAll());

    it("should give Bob, no token or a garbage token a fresh socket and none of Alice's events; Alice still recovers", async () => {
      await stolenRecovery({ server: booted.current, first: booted.url, second: booted.url }, transport);
    }, 90_000);
  });

  describe.skipIf(!serverMode)('across two nodes', () => {
    const nodes = useTwoNodesInProcess();
    afterEach(() => closeAll());

    it("should give the thieves on the other node a fresh socket and none of Alice's events; Alice recovers there", async () => {
      await stolenRecovery({ server: nodes.server!, first: nodes.a!.url, second: nodes.b!.url }, transport);
    }, 90_000);
  });
});
