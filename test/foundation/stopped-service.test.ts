// A stopped service leaves nothing alive in its process: uWebSockets.js keeps every handler it was
// given for the life of the process, so the handlers are let go when the service stops
// (http/releasable-app.ts), and the recovery adapter's sweep, which its library never stops, lets
// go of its namespace (realtime/server.ts). The suite runs many services one after another in each
// worker process and relies on it; so would anything that restarts a service in place.
import net from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { asTestServer, startNode, testEnvironment } from '../helpers/server.js';
import { registerAndLogin } from '../helpers/api.js';
import { connect } from '../realtime/socket-client.js';

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

/**
 * Whether the object is collected within a second. A deref keeps its object alive until the end of
 * the job that made it, so each check waits for a new job and collects before it derefs.
 */
async function collectedSoon(ref: WeakRef<object>): Promise<boolean> {
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 50));
    collectGarbage();
    if (ref.deref() === undefined) return true;
  }
  return false;
}

/** Sends a raw GET on a socket; resolves with what came back before the socket ended, or on timeout. */
function getOn(socket: net.Socket, path: string): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    const done = () => {
      socket.removeAllListeners('data');
      resolve(received);
    };
    socket.on('data', (d: Buffer) => {
      received += d.toString('latin1');
      if (received.includes('\r\n\r\n')) done();
    });
    socket.once('close', done);
    socket.once('error', done);
    setTimeout(done, 3_000).unref();
    socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n`);
  });
}

describe('a stopped service', () => {
  it('can be collected once stopped, after serving HTTP and websocket clients', async () => {
    // The node lives only in this function: once it returns, nothing of the test holds it.
    const stopped = async (): Promise<WeakRef<object>> => {
      const { env, cleanup } = await testEnvironment();
      const node = await startNode(env);
      const user = await registerAndLogin(asTestServer(node));
      for (const transport of ['websocket', 'polling'] as const) (await connect(node.url, '/chat', user.token, transport)).disconnect();
      const services = new WeakRef(node.services);
      await node.close();
      await cleanup();
      return services;
    };
    expect(await collectedSoon(await stopped())).toBe(true);
  });

  it('closes a keep-alive connection that asks after the stop, and the process goes on', async () => {
    const { env, cleanup } = await testEnvironment();
    const node = await startNode(env);
    const socket = net.connect(node.port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    expect(await getOn(socket, '/healthz')).toMatch(/^HTTP\/1\.1 200/);
    await node.close();
    await cleanup();
    // The connection outlived the listening socket; its next request reaches a released handler.
    const after = await getOn(socket, '/healthz');
    expect(after).not.toMatch(/^HTTP\/1\.1 200/);
    socket.destroy();
    // Another service in the same process serves as before.
    const { env: env2, cleanup: cleanup2 } = await testEnvironment();
    const next = await startNode(env2);
    expect((await fetch(`${next.url}/healthz`)).status).toBe(200);
    await next.close();
    await cleanup2();
  });
});
