// Placeholder: durable video-processing workers (content and media issue).
import type { AppContext } from '../src/context.js';

export interface VideoWorkers {
  stop(timeoutMs: number): Promise<void>;
}

export function startVideoWorkers(_app: AppContext): VideoWorkers {
  return { stop: async () => undefined };
}
