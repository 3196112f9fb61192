// HLS rendition: H.264 (x264, preset veryfast) + AAC, ~4 s segments, one ffmpeg run that decodes
// once and encodes every rung of the ladder, and a master playlist naming them all.
// Ladder: 360p, 720p, 1080p rungs (measured on the short side, so vertical phone videos work
// too) up to the source's size; a source below 360p gets one rung at its own size.
import fs from 'node:fs';
import path from 'node:path';
import { ffmpegCommand, runCommand, type MediaTools } from './ffmpeg.js';
import type { VideoProbe } from './probe.js';

export interface Rung {
  name: string;
  /** Short side in pixels (even). */
  shortSide: number;
  videoKbps: number;
  audioKbps: number;
}

const LADDER: Rung[] = [
  { name: '360p', shortSide: 360, videoKbps: 800, audioKbps: 96 },
  { name: '720p', shortSide: 720, videoKbps: 2800, audioKbps: 128 },
  { name: '1080p', shortSide: 1080, videoKbps: 5000, audioKbps: 128 },
];

const SEGMENT_SECONDS = 4;
export const MASTER_PLAYLIST = 'master.m3u8';
/** Each rung's own playlist, in the rung's directory. */
export const RUNG_PLAYLIST = 'index.m3u8';

function ladderFor(probe: Pick<VideoProbe, 'width' | 'height'>): Rung[] {
  const short = Math.min(probe.width, probe.height);
  const rungs = LADDER.filter((r) => r.shortSide <= short);
  if (rungs.length) return rungs;
  const even = Math.max(2, short - (short % 2));
  return [{ name: `${even}p`, shortSide: even, videoKbps: Math.max(300, Math.round((even / 360) * 800)), audioKbps: 96 }];
}

export interface HlsOptions {
  /** Directory that receives master.m3u8 and one sub-directory per rung. */
  outDir: string;
  /** Prefix of segment file names: unique per run, so segments can be cached as immutable. */
  segmentPrefix: string;
  preset?: string;
  signal?: AbortSignal;
  /** Nothing past this many seconds of the input is read (a file may understate its duration). */
  maxSeconds?: number;
  /** Called with 0..1 as encoding advances. */
  onProgress?: (fraction: number) => void;
}

export async function transcodeHls(tools: MediaTools, input: string, probe: VideoProbe, options: HlsOptions): Promise<{ rungs: Rung[]; playlist: string }> {
  const rungs = ladderFor(probe);
  fs.mkdirSync(options.outDir, { recursive: true });
  for (const r of rungs) fs.mkdirSync(path.join(options.outDir, r.name), { recursive: true });
  const landscape = probe.width >= probe.height;
  const scale = (r: Rung) => (landscape ? `scale=-2:${r.shortSide}` : `scale=${r.shortSide}:-2`);
  const filter =
    rungs.length === 1
      ? `[0:${probe.videoStream}]${scale(rungs[0])},setsar=1,format=yuv420p[v0]`
      : `[0:${probe.videoStream}]split=${rungs.length}${rungs.map((_, i) => `[s${i}]`).join('')};` +
        rungs.map((r, i) => `[s${i}]${scale(r)},setsar=1,format=yuv420p[v${i}]`).join(';');

  const args: string[] = ['-filter_complex', filter];
  rungs.forEach((r, i) => {
    args.push('-map', `[v${i}]`);
    if (probe.hasAudio) args.push('-map', '0:a:0');
    args.push(`-b:v:${i}`, `${r.videoKbps}k`, `-maxrate:v:${i}`, `${Math.round(r.videoKbps * 1.07)}k`, `-bufsize:v:${i}`, `${r.videoKbps * 2}k`);
    if (probe.hasAudio) args.push(`-b:a:${i}`, `${r.audioKbps}k`);
  });
  args.push(
    '-c:v',
    'libx264',
    '-preset',
    options.preset ?? 'veryfast',
    '-profile:v',
    'main',
    // A key frame at every segment boundary, and no scene-cut key frames that would shift them.
    '-force_key_frames',
    `expr:gte(t,n_forced*${SEGMENT_SECONDS})`,
    '-sc_threshold',
    '0',
  );
  if (probe.hasAudio) args.push('-c:a', 'aac', '-ac', '2', '-ar', '48000');
  args.push(
    '-f',
    'hls',
    '-hls_time',
    String(SEGMENT_SECONDS),
    '-hls_playlist_type',
    'vod',
    '-hls_flags',
    'independent_segments',
    '-hls_segment_type',
    'mpegts',
    '-hls_segment_filename',
    path.join(options.outDir, '%v', `${options.segmentPrefix}_%03d.ts`),
    '-master_pl_name',
    MASTER_PLAYLIST,
    '-var_stream_map',
    rungs.map((r, i) => (probe.hasAudio ? `v:${i},a:${i},name:${r.name}` : `v:${i},name:${r.name}`)).join(' '),
  );
  const command = ffmpegCommand(tools, input, probe.container);
  if (options.maxSeconds) command.inputOptions('-t', String(options.maxSeconds));
  command.outputOptions(...args).output(path.join(options.outDir, '%v', RUNG_PLAYLIST));
  await runCommand(command, options.signal, (seconds) => options.onProgress?.(Math.min(1, seconds / probe.duration)));
  return { rungs, playlist: path.join(options.outDir, MASTER_PLAYLIST) };
}
