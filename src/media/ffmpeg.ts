// One place that builds ffmpeg/ffprobe invocations over the system binaries (FFMPEG_PATH /
// FFPROBE_PATH when set, else `ffmpeg`/`ffprobe` on PATH), and runs them cancellably.
//
// Every input is opened with an explicit demuxer from CONTAINERS and only the `file` protocol:
// left to themselves, ffmpeg and ffprobe pick a demuxer by sniffing, and a text file that
// sniffs as a DASH/HLS manifest or a concat list makes them open the files and URLs it names
// (CONTRACT §19). Which container a file is comes from probe.ts, never from its name.
import path from 'node:path';
import ffmpeg from 'fluent-ffmpeg';
import type { Config } from '../config.js';
import { storageFailureLine } from './storage-errors.js';

export type FfmpegCommand = ffmpeg.FfmpegCommand;

export interface MediaTools {
  ffmpegPath: string;
  ffprobePath: string;
}

export const mediaTools = (config: Pick<Config, 'FFMPEG_PATH' | 'FFPROBE_PATH'>): MediaTools => ({
  ffmpegPath: config.FFMPEG_PATH ?? 'ffmpeg',
  ffprobePath: config.FFPROBE_PATH ?? 'ffprobe',
});

/** The demuxers an upload may be read with. */
export type Container = 'mov' | 'matroska';

export const CONTAINERS: Record<Container, { formatName: string; label: string; demuxerOptions: string[] }> = {
  // Data references (`dref`) would let an MP4 point at other files; they are off by default, and
  // stated here so that a change of default in a future ffmpeg cannot turn them on.
  mov: { formatName: 'mov,mp4,m4a,3gp,3g2,mj2', label: 'MP4/MOV', demuxerOptions: ['-enable_drefs', '0', '-use_absolute_path', '0'] },
  matroska: { formatName: 'matroska,webm', label: 'Matroska/WebM', demuxerOptions: [] },
};

/** Tried in this order when probing. */
export const CONTAINER_ORDER: Container[] = ['mov', 'matroska'];

/** Input options that come before `-i` for every ffmpeg/ffprobe run on an upload. */
export function inputArgs(container: Container): string[] {
  return ['-f', container, '-protocol_whitelist', 'file', ...CONTAINERS[container].demuxerOptions];
}

/** The input as an explicit file URL, so no part of the path can be read as a protocol name. */
export const inputUrl = (file: string): string => `file:${path.resolve(file)}`;

export function ffmpegCommand(tools: MediaTools, input: string, container: Container): FfmpegCommand {
  return ffmpeg(inputUrl(input)).inputOptions(inputArgs(container)).setFfmpegPath(tools.ffmpegPath).setFfprobePath(tools.ffprobePath);
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
 * must not wait for it, and a job past its time limit must end now); the promise settles only once
 * the process has exited.
 *
 * Progress is read from ffmpeg's own status lines, not from fluent-ffmpeg's `progress` event:
 * listening to that event makes fluent-ffmpeg start an ffprobe of the input beside ffmpeg, one
 * that sniffs the demuxer (no `-f`, no protocol whitelist) and that no kill or time limit reaches.
 *
 * An exit status of 0 is not taken as success on its own: the muxers go on past failed writes, so
 * a run whose output says the storage refused bytes fails here (the outputs are checked too, in
 * output-check.ts).
 */
export function runCommand(command: FfmpegCommand, signal?: AbortSignal, onProgress?: (seconds: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new ProcessingAbortedError());
      return;
    }
    const onAbort = () => command.kill('SIGKILL');
    signal?.addEventListener('abort', onAbort, { once: true });
    if (onProgress) {
      command.on('stderr', (line: string) => {
        const time = STATUS_TIME.exec(line);
        if (time) onProgress(timemarkSeconds(time[1]));
      });
    }
    command
      .on('end', (_stdout: string | null, stderr: string | null) => {
        signal?.removeEventListener('abort', onAbort);
        const refused = stderr ? storageFailureLine(stderr) : null;
        if (refused) reject(new Error(`ffmpeg could not write its output: ${refused.trim().slice(0, 300)}`));
        else resolve();
      })
      .on('error', (err: Error, _stdout: string | null, stderr: string | null) => {
        signal?.removeEventListener('abort', onAbort);
        if (signal?.aborted) reject(new ProcessingAbortedError());
        else reject(new Error(`${err.message.split('\n')[0]}${stderr ? `: ${lastLines(stderr)}` : ''}`));
      })
      .run();
  });
}

/** The `time=` of ffmpeg's status line ("frame=… time=00:00:04.92 bitrate=…"). */
const STATUS_TIME = /\btime=\s*(-?\d+:\d+:\d+(?:\.\d+)?)/;

function timemarkSeconds(timemark: string): number {
  const m = /^(-?\d+):(\d+):(\d+(?:\.\d+)?)$/.exec(timemark);
  if (!m) return Number(timemark) || 0;
  return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
}

function lastLines(stderr: string): string {
  // The input's location is ours, not the uploader's business.
  return stderr
    .trim()
    .split('\n')
    .slice(-3)
    .join(' | ')
    .replace(/file:\S+/g, 'input')
    .slice(0, 500);
}
