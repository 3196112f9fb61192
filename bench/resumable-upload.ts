// A large main video uploaded at full speed through both doors of the file service, in one run:
// the multipart route (POST /file-processing/api/v1/upload?id=…, one request) and the resumable
// route (tus, `BENCH_CHUNK_MB` PATCHes with tus-js-client). For each: wall time, throughput, the
// service's CPU seconds (its node process, and apart its child processes: ffprobe at the tus
// completion), and the service's RSS sampled every 100 ms during the upload (start, median, max,
// end), to show that no file is held in memory.
//   npx tsx bench/resumable-upload.ts
//   BENCH_UPLOAD_MB=200 BENCH_CHUNK_MB=5 BENCH_RUNS=2 npx tsx bench/resumable-upload.ts
//   BENCH_RSS_TRACE=1 …   also prints every RSS sample (MB)
// The video is made once with ffmpeg (noise, so it does not compress; `-fs` stops it at the size)
// and kept in the temp directory for later runs. The service runs as a child process
// (embedded PGlite, VIDEO_WORKERS=0: processing is not measured, only the upload).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import * as tus from 'tus-js-client';
import { benchUserToken, freePort, sleep, spawnNode, stopChild, waitFor } from './bench-helpers.js';

const uploadMb = Number(process.env.BENCH_UPLOAD_MB ?? 200);
const chunkMb = Number(process.env.BENCH_CHUNK_MB ?? 5);
const runs = Number(process.env.BENCH_RUNS ?? 1);
const trace = process.env.BENCH_RSS_TRACE === '1';
const MB = 1024 * 1024;
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** A real MP4 of about `megabytes` (ffprobe reads it; the tus completion probes it). */
function benchVideo(megabytes: number): string {
  const file = path.join(os.tmpdir(), `revs-bench-upload-${megabytes}MB.mp4`);
  if (fs.existsSync(file)) return file;
  const partial = `${file}.partial.mp4`;
  execFileSync('ffmpeg', [
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=1280x720:rate=30,noise=alls=80:allf=t',
    '-t',
    '590',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-qp',
    '8',
    '-pix_fmt',
    'yuv420p',
    '-fs',
    String(megabytes * MB),
    partial,
  ]);
  fs.renameSync(partial, file);
  return file;
}

interface ProcessSample {
  /** CPU seconds of the process itself, and of its waited-for children. */
  cpu: number;
  childCpu: number;
  rssMb: number;
}

function sample(pid: number): ProcessSample {
  // Fields after the command name (which may hold spaces): utime is the 14th field of the line.
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((i) => Number(fields[i]));
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return { cpu: (utime + stime) / CLOCK_TICKS, childCpu: (cutime + cstime) / CLOCK_TICKS, rssMb: rss / 1024 };
}

interface Figures {
  route: string;
  megabytes: number;
  seconds: number;
  megabytesPerSecond: number;
  serviceCpuSeconds: number;
  serviceCpuPercent: number;
  childProcessCpuSeconds: number;
  rssMb: { start: number; median: number; max: number; end: number };
}

/** Runs `upload` while sampling the service every 100 ms. */
async function measure(route: string, pid: number, bytes: number, upload: () => Promise<void>): Promise<Figures> {
  const before = sample(pid);
  const rss: number[] = [before.rssMb];
  const timer = setInterval(() => rss.push(sample(pid).rssMb), 100);
  const started = process.hrtime.bigint();
  try {
    await upload();
  } finally {
    clearInterval(timer);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const after = sample(pid);
  rss.push(after.rssMb);
  if (trace) console.log(route, 'RSS MB', rss.map((r) => Math.round(r)).join(' '));
  const sorted = [...rss].sort((a, b) => a - b);
  const round = (n: number, digits = 1) => Number(n.toFixed(digits));
  const cpu = after.cpu - before.cpu;
  return {
    route,
    megabytes: round(bytes / MB),
    seconds: round(seconds, 2),
    megabytesPerSecond: round(bytes / MB / seconds),
    serviceCpuSeconds: round(cpu, 2),
    serviceCpuPercent: round((cpu / seconds) * 100),
    childProcessCpuSeconds: round(after.childCpu - before.childCpu, 2),
    rssMb: { start: round(rss[0]), median: round(sorted[Math.floor(sorted.length / 2)]), max: round(sorted.at(-1)!), end: round(rss.at(-1)!) },
  };
}

async function createContent(base: string, token: string): Promise<string> {
  const res = await fetch(`${base}/content/api/v1/content`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      price: 3_000_000_000,
      unit_price: 'VND',
      area: 70,
      unit_area: 'm2',
      content_info: [{ lang: 'en', project_name: 'Bench flat', description: 'Upload bench', address: 'District 7' }],
    }),
  });
  if (res.status !== 201) throw new Error(`content creation: ${res.status} ${await res.text()}`);
  return (await res.json()).data.id;
}

async function multipartUpload(base: string, token: string, contentId: string, file: string): Promise<void> {
  const form = new FormData();
  form.append('files', await fs.openAsBlob(file, { type: 'video/mp4' }), 'tour.mp4');
  const res = await fetch(`${base}/file-processing/api/v1/upload?id=${contentId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  if (res.status !== 200) throw new Error(`multipart upload: ${res.status} ${await res.text()}`);
}

function resumableUpload(base: string, token: string, contentId: string, data: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const upload = new tus.Upload(data, {
      endpoint: `${base}/file-processing/api/v1/resumable`,
      headers: { Authorization: `Bearer ${token}` },
      metadata: { content_id: contentId, filename: 'tour.mp4', filetype: 'video/mp4' },
      chunkSize: chunkMb * MB,
      retryDelays: [],
      onSuccess: () => resolve(),
      onError: reject,
    });
    upload.start();
  });
}

async function main() {
  const file = benchVideo(uploadMb);
  const bytes = fs.statSync(file).size;
  const data = fs.readFileSync(file);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-bench-tus-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const service = spawnNode(['--import', 'tsx', 'main.ts'], {
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    RATE_LIMIT_SCALE: '100000',
    SCHEDULER_ENABLED: 'false',
    VIDEO_WORKERS: '0',
    MAX_VIDEO_BYTES: String(Math.max(500 * MB, bytes + MB)),
  });
  try {
    await waitFor(`${base}/readyz`, { child: service });
    const token = await benchUserToken(base, dataDir);
    const results: Figures[] = [];
    for (let run = 0; run < runs; run++) {
      results.push(
        await measure('multipart POST /upload', service.pid!, bytes, async () => multipartUpload(base, token, await createContent(base, token), file)),
      );
      await sleep(1000);
      results.push(
        await measure(`tus, ${chunkMb} MB PATCHes`, service.pid!, bytes, async () => resumableUpload(base, token, await createContent(base, token), data)),
      );
      await sleep(1000);
    }
    console.log(JSON.stringify({ cpus: os.cpus().length, loadavg1m: Number(os.loadavg()[0].toFixed(2)), results }, null, 2));
  } finally {
    await stopChild(service);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
