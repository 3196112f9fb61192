// The process: read the configuration, start one node, stop cleanly on SIGTERM/SIGINT.
import { loadConfig, ConfigError } from './src/config.js';
import { startService } from './service.js';

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
  throw err;
}

// A stop asked while the node starts (its port may already listen) is kept and carried out as
// soon as it has started: without a handler the signal would kill the process uncleanly.
let signalledWhileStarting: string | null = null;
const termWhileStarting = () => void (signalledWhileStarting ??= 'SIGTERM');
const intWhileStarting = () => void (signalledWhileStarting ??= 'SIGINT');
process.on('SIGTERM', termWhileStarting);
process.on('SIGINT', intWhileStarting);

try {
  const service = await startService(config);
  process.off('SIGTERM', termWhileStarting);
  process.off('SIGINT', intWhileStarting);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), config.SHUTDOWN_TIMEOUT_MS + 5_000);
    force.unref();
    service.close().then(
      () => process.exit(0),
      (err) => {
        service.app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  // Last line of defence (CONTRACT §19: nothing one client does may end the process): a promise
  // rejected with nobody to handle it is a bug to fix, not a reason to drop every other client.
  // Realtime handlers catch at their edge (realtime/transport/socket-edge.ts); this logs what slips through.
  process.on('unhandledRejection', (reason) => {
    service.app.log.error({ err: reason }, 'unhandled rejection (the node keeps serving)');
  });
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  if (signalledWhileStarting) stop(signalledWhileStarting);
} catch (err) {
  process.stderr.write(`start failed: ${(err as Error).message}\n`);
  process.exit(1);
}
