// Starts the S3 API server the S3 tests use (moto's server mode) on a free loopback port, for
// the whole run. moto stores what the AWS SDK sends byte for byte (streamed puts, multipart
// uploads) and answers ranges. Without moto_server on PATH (or MOTO_SERVER naming it) the S3
// tests are skipped with a message, except in CI (CI=true), where a missing server fails the run.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function findMoto(): string | null {
  const named = process.env.MOTO_SERVER;
  if (named) return named;
  const found = spawnSync('sh', ['-c', 'command -v moto_server'], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : null;
}

/** Waits (bounded) until the server answers HTTP. */
async function answers(endpoint: string, child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      const res = await fetch(endpoint, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      return true;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return false;
}

/** The endpoint of a running S3 API server ('' when none could be had outside CI) and how to stop it. */
export async function startS3Server(): Promise<{ endpoint: string; stop: () => void }> {
  const moto = findMoto();
  if (!moto) {
    if (process.env.CI) throw new Error('moto_server is not installed: the S3 tests cannot run (.ci/run installs it)');
    console.warn('\n  S3 tests skipped: moto_server not found (install it: python3 -m pip install "moto[server]")\n');
    return { endpoint: '', stop: () => undefined };
  }
  const port = await freePort();
  const child = spawn(moto, ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  const endpoint = `http://127.0.0.1:${port}`;
  if (!(await answers(endpoint, child))) {
    child.kill('SIGKILL');
    throw new Error(`moto_server (${moto}) did not answer on ${endpoint}`);
  }
  return { endpoint, stop: () => child.kill('SIGTERM') };
}
