// The processing of one video, stage by stage: probe → thumbnail → HLS → (the caller finalises).
// Pure media work on files: no database, no events (the worker reports stages through onStage).
// A video beyond the limits stops after probing, before anything is decoded; a run whose outputs
// are not all whole (output-check.ts) fails.
import fs from 'node:fs';
import path from 'node:path';
import type { MediaTools } from './ffmpeg.js';
import { checkVideoLimits, probeVideo, type VideoLimits, type VideoProbe } from './probe.js';
import { writeThumbnail } from './thumbnail.js';
import { transcodeHls, type Rung } from './hls.js';
import { verifyProcessingOutputs } from './output-check.js';

export type ProcessingStage = 'probing' | 'thumbnail' | 'transcoding' | 'finalizing';

export interface PipelineOptions {
  tools: MediaTools;
  input: string;
  /** Receives thumbnail.jpg and hls/ (master.m3u8 + one directory per rung). */
  workDir: string;
  segmentPrefix: string;
  preset?: string;
  limits: VideoLimits;
  signal?: AbortSignal;
  onStage?: (stage: ProcessingStage, percent: number) => void;
}

export interface PipelineResult {
  probe: VideoProbe;
  rungs: Rung[];
  thumbnailFile: string;
  hlsDir: string;
}

// Share of the whole run each stage stands for, for one overall percentage.
const STAGE_SPAN: Record<ProcessingStage, [number, number]> = {
  probing: [0, 2],
  thumbnail: [2, 5],
  transcoding: [5, 97],
  finalizing: [97, 100],
};

function overallPercent(stage: ProcessingStage, fraction: number): number {
  const [from, to] = STAGE_SPAN[stage];
  return Math.round(from + (to - from) * Math.min(1, Math.max(0, fraction)));
}

export async function runVideoPipeline(options: PipelineOptions): Promise<PipelineResult> {
  const report = (stage: ProcessingStage, fraction: number) => options.onStage?.(stage, overallPercent(stage, fraction));
  fs.mkdirSync(options.workDir, { recursive: true });
  report('probing', 0);
  const { limits } = options;
  const probe = await probeVideo(options.tools, options.input, options.signal);
  checkVideoLimits(probe, limits);
  report('thumbnail', 0);
  const thumbnailFile = path.join(options.workDir, 'thumbnail.jpg');
  await writeThumbnail(options.tools, options.input, thumbnailFile, probe, options.signal);
  report('transcoding', 0);
  const hlsDir = path.join(options.workDir, 'hls');
  const { rungs } = await transcodeHls(options.tools, options.input, probe, {
    outDir: hlsDir,
    segmentPrefix: options.segmentPrefix,
    preset: options.preset,
    signal: options.signal,
    maxSeconds: limits.maxSeconds,
    onProgress: (fraction) => report('transcoding', fraction),
  });
  report('finalizing', 0);
  // Nothing is handed on unless every file the run made is whole (a full storage leaves empty ones).
  await verifyProcessingOutputs({ thumbnailFile, hlsDir, rungNames: rungs.map((r) => r.name) });
  return { probe, rungs, thumbnailFile, hlsDir };
}
