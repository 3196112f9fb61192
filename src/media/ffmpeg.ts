// One place that builds fluent-ffmpeg commands over the system binaries (FFMPEG_PATH /
// FFPROBE_PATH when set, else `ffmpeg`/`ffprobe` on PATH), and runs them cancellably.
import ffmpeg from 'fluent-ffmpeg';
import type { Config } from '../config.js';

export type FfmpegCommand = ffmpeg.FfmpegCommand;

export interface MediaTools {
  ffmpegPath: string;
  ffprobePath: string;
}

export const mediaTools = (config: Pick<Config, 'FFMPEG_PATH' | 'FFPROBE_PATH'>): MediaTools => ({
  ffmpegPath: config.FFMPEG_PATH ?? 'ffmpeg',
  ffprobePath: config.FFPROBE_PATH ?? 'ffprobe',
});

export function ffmpegCommand(tools: MediaTools, input: string): FfmpegCommand {
  return ffmpeg(input).setFfmpegPath(tools.ffmpegPath).setFfprobePath(tools.ffprobePath);
}

/** A failure of the media itself (not decodable, no video stream): retrying will not help. */
export class InvalidMediaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidMediaError';
  }
}

export class ProcessingAbortedError extends Error {
  constructor() {
    super('processing aborted');
    this.name = 'ProcessingAbortedError';
  }
}

/**
 * Runs a prepared command to completion. The abort signal kills ffmpeg (SIGKILL: a stopping node
 * must not wait for it). `onStderrLine` sees ffmpeg's log lines (for the failure reason).
 */
export function runCommand(
  command: FfmpegCommand,
  signal?: AbortSignal,
  onProgress?: (seconds: number) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new ProcessingAbortedError());
      return;
    }
    const onAbort = () => command.kill('SIGKILL');
    signal?.addEventListener('abort', onAbort, { once: true });
    command
      .on('progress', (p: { timemark?: string }) => {
        if (onProgress && p.timemark) onProgress(timemarkSeconds(p.timemark));
      })
      .on('end', () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      })
      .on('error', (err: Error, _stdout: string | null, stderr: string | null) => {
        signal?.removeEventListener('abort', onAbort);
        if (signal?.aborted) reject(new ProcessingAbortedError());
        else reject(new Error(`${err.message.split('\n')[0]}${stderr ? `: ${lastLines(stderr)}` : ''}`));
      })
      .run();
  });
}

function timemarkSeconds(timemark: string): number {
  const m = /^(-?\d+):(\d+):(\d+(?:\.\d+)?)$/.exec(timemark);
  if (!m) return Number(timemark) || 0;
  return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
}

function lastLines(stderr: string): string {
  return stderr.trim().split('\n').slice(-3).join(' | ').slice(0, 500);
}
