// Video processing throughput: makes a 30-second 720p clip (testsrc + sine) with ffmpeg, runs the
// service's own pipeline on it (probe → thumbnail → HLS 360p + 720p, x264 veryfast) and prints
// seconds of video processed per second of wall time.
// Run: npx tsx bench/video-processing.ts [seconds] [WxH]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { runVideoPipeline } from '../src/media/pipeline.js';
import { mediaTools } from '../src/media/ffmpeg.js';
import { videoLimits } from '../src/media/probe.js';

const seconds = Number(process.argv[2] ?? 30);
const size = process.argv[3] ?? '1280x720';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-bench-video-'));
const tools = mediaTools({ FFMPEG_PATH: process.env.FFMPEG_PATH, FFPROBE_PATH: process.env.FFPROBE_PATH });
try {
  const input = path.join(dir, 'input.mp4');
  execFileSync(tools.ffmpegPath, [
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `testsrc2=size=${size}:rate=30`,
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440',
    '-t',
    String(seconds),
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    input,
  ]);
  const started = process.hrtime.bigint();
  const stageTimes: Record<string, number> = {};
  const result = await runVideoPipeline({
    tools,
    input,
    workDir: path.join(dir, 'out'),
    segmentPrefix: 'bench',
    limits: videoLimits({ MAX_VIDEO_SECONDS: Math.max(600, seconds) }),
    onStage: (stage) => {
      stageTimes[stage] ??= Number(process.hrtime.bigint() - started) / 1e9;
    },
  });
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(
    JSON.stringify({
      input: `${seconds}s ${size} 30fps H.264/AAC`,
      rungs: result.rungs.map((r) => r.name),
      cpus: os.cpus().length,
      loadavg1m: Number(os.loadavg()[0].toFixed(2)),
      wallSeconds: Number(wall.toFixed(2)),
      stageStartSeconds: Object.fromEntries(Object.entries(stageTimes).map(([k, v]) => [k, Number(v.toFixed(2))])),
      videoSecondsPerWallSecond: Number((result.probe.duration / wall).toFixed(2)),
    }),
  );
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
