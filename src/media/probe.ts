// ffprobe: the container, duration, display resolution and streams of a video, and the limits an
// upload must keep. A file that no allowed demuxer can read, or one without a video stream, is an
// InvalidMediaError (the job fails without retrying); a readable video beyond the limits is a
// VideoLimitError.
import { execFile } from 'node:child_process';
import type { Config } from '../config.js';
import { CONTAINERS, CONTAINER_ORDER, InvalidMediaError, ProcessingAbortedError, inputArgs, inputUrl, type Container, type MediaTools } from './ffmpeg.js';

export interface VideoProbe {
  /** The demuxer every later run on this file must use. */
  container: Container;
  /** Seconds. */
  duration: number;
  /** Display size (rotation applied) of the video stream that is processed. */
  width: number;
  height: number;
  /** Index (in the file) of that stream. */
  videoStream: number;
  /** Long and short side of the largest video stream in the file. */
  largestLongSide: number;
  largestShortSide: number;
  hasAudio: boolean;
}

export interface VideoLimits {
  maxSeconds: number;
  /** 3840x2160 in either orientation. */
  maxLongSide: number;
  maxShortSide: number;
}

const MAX_LONG_SIDE = 3840;
const MAX_SHORT_SIDE = 2160;

export const videoLimits = (config: Pick<Config, 'MAX_VIDEO_SECONDS'>): VideoLimits => ({
  maxSeconds: config.MAX_VIDEO_SECONDS,
  maxLongSide: MAX_LONG_SIDE,
  maxShortSide: MAX_SHORT_SIDE,
});

export type VideoLimitReason = 'too_long' | 'resolution_too_high';

export class VideoLimitError extends InvalidMediaError {
  constructor(
    readonly reason: VideoLimitReason,
    message: string,
    /** The limit, as a client would read it ("at most 600 s"). */
    readonly constraint: string,
  ) {
    super(message);
    this.name = 'VideoLimitError';
  }
}

/** Throws a VideoLimitError when the probed video is longer or larger than the limits allow. */
export function checkVideoLimits(probe: VideoProbe, limits: VideoLimits): void {
  if (probe.duration > limits.maxSeconds) {
    throw new VideoLimitError('too_long', `the video lasts ${probe.duration} s; at most ${limits.maxSeconds} s are accepted`, `at most ${limits.maxSeconds} s`);
  }
  if (probe.largestLongSide > limits.maxLongSide || probe.largestShortSide > limits.maxShortSide) {
    const size = `${limits.maxLongSide}x${limits.maxShortSide}`;
    throw new VideoLimitError(
      'resolution_too_high',
      `the video is ${probe.largestLongSide}x${probe.largestShortSide}; at most ${size} (either orientation) is accepted`,
      `at most ${size} (either orientation)`,
    );
  }
}

const PROBE_TIMEOUT_MS = 60_000;
const PROBE_MAX_OUTPUT = 4 * 1024 * 1024;

interface ProbeStream {
  index: number;
  codec_type?: string;
  width?: number;
  height?: number;
  duration?: string;
  disposition?: { attached_pic?: number };
  tags?: Record<string, string>;
  side_data_list?: { rotation?: number }[];
}

interface ProbeOutput {
  format?: { format_name?: string; duration?: string };
  streams?: ProbeStream[];
}

type Attempt = { ok: true; data: ProbeOutput } | { ok: false };

/**
 * Reads the file with each allowed demuxer in turn (never letting ffprobe pick one) and keeps the
 * first that reads it and names itself as expected.
 */
export async function probeVideo(tools: MediaTools, file: string, signal?: AbortSignal): Promise<VideoProbe> {
  for (const container of CONTAINER_ORDER) {
    const attempt = await runProbe(tools, file, container, signal);
    if (attempt.ok && attempt.data.format?.format_name === CONTAINERS[container].formatName) {
      return describe(container, attempt.data);
    }
  }
  const accepted = CONTAINER_ORDER.map((c) => CONTAINERS[c].label).join(' or ');
  throw new InvalidMediaError(`not a decodable video: not a readable ${accepted} file`);
}

function runProbe(tools: MediaTools, file: string, container: Container, signal?: AbortSignal): Promise<Attempt> {
  const args = ['-v', 'error', ...inputArgs(container), '-of', 'json', '-show_format', '-show_streams', inputUrl(file)];
  return new Promise((resolve, reject) => {
    execFile(
      tools.ffprobePath,
      args,
      { timeout: PROBE_TIMEOUT_MS, killSignal: 'SIGKILL', maxBuffer: PROBE_MAX_OUTPUT, signal, windowsHide: true },
      (err, stdout) => {
        if (signal?.aborted) {
          reject(new ProcessingAbortedError());
          return;
        }
        // A missing binary is the server's problem, not the file's (the job is retried).
        if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') {
          reject(new Error(`ffprobe not found (${tools.ffprobePath})`));
          return;
        }
        if (err) {
          resolve({ ok: false });
          return;
        }
        try {
          resolve({ ok: true, data: JSON.parse(stdout) as ProbeOutput });
        } catch {
          resolve({ ok: false });
        }
      },
    );
  });
}

function describe(container: Container, data: ProbeOutput): VideoProbe {
  const streams = data.streams ?? [];
  const videos = streams.filter((s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1 && s.width && s.height);
  const video = videos[0];
  if (!video) throw new InvalidMediaError('the file holds no video stream');
  const duration = Number(data.format?.duration ?? video.duration);
  if (!Number.isFinite(duration) || duration <= 0) throw new InvalidMediaError('the video has no measurable duration');
  const rotation = Math.abs(rotationOf(video)) % 180;
  const [width, height] = rotation === 90 ? [video.height!, video.width!] : [video.width!, video.height!];
  return {
    container,
    duration: Math.round(duration * 1000) / 1000,
    width,
    height,
    videoStream: video.index,
    largestLongSide: Math.max(...videos.map((s) => Math.max(s.width!, s.height!))),
    largestShortSide: Math.max(...videos.map((s) => Math.min(s.width!, s.height!))),
    hasAudio: streams.some((s) => s.codec_type === 'audio'),
  };
}

function rotationOf(stream: ProbeStream): number {
  const tag = Number(stream.tags?.rotate);
  if (Number.isFinite(tag) && tag !== 0) return tag;
  const fromMatrix = stream.side_data_list?.find((d) => typeof d.rotation === 'number')?.rotation;
  return fromMatrix ?? 0;
}
