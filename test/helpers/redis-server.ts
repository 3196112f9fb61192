// A Redis server of the test's own (redis-server on a free port, nothing kept on disk), for tests
// that take Redis away and bring it back without touching the shared one.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';

/** Whether this machine can start one (the outage tests are skipped where it cannot). */
export const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

/** Starts redis-server on `port`; resolves once it accepts connections. */
export async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => (s.end(), resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (up) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('redis-server did not start');
}

/** Kills it (SIGKILL: an outage, not a shutdown); resolves once it has exited. */
export const stopRedis = (child: ChildProcess): Promise<void> =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
