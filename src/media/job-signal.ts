// Wakes this node's idle video workers as soon as a job is queued here, instead of waiting for
// their next poll (other nodes still find the job by polling). One signal per application.
import { EventEmitter } from 'node:events';
import type { AppContext } from '../context.js';

const signals = new WeakMap<AppContext, EventEmitter>();

function signalOf(app: AppContext): EventEmitter {
  let emitter = signals.get(app);
  if (!emitter) {
    emitter = new EventEmitter();
    emitter.setMaxListeners(64);
    signals.set(app, emitter);
  }
  return emitter;
}

export function notifyVideoJobQueued(app: AppContext): void {
  signalOf(app).emit('queued');
}

export function onVideoJobQueued(app: AppContext, listener: () => void): () => void {
  const emitter = signalOf(app);
  emitter.on('queued', listener);
  return () => emitter.off('queued', listener);
}
