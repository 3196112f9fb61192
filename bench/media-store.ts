// The media store (CONTRACT §27): the local disk against an S3 bucket (moto's server mode on
// loopback, as the tests start it). For each store, one in-process node: a 20 s 720p clip is
// uploaded to a content item and processed (upload answered → job completed, wall time), then
// autocannon serves (a) one of the rendition's HLS segments and (b) random 1 MiB ranges of a
// 20 MB original through /media. Prints one JSON line per store.
// Run: npx tsx bench/media-store.ts [serveSeconds] [connections]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { loadConfig } from '../src/config.js';
import { startService, type RunningService } from '../service.js';
import { createLogger } from '../src/shared/logger.js';
import { startS3Server } from '../test/s3-setup.js';
import { benchUserToken, sleep } from './bench-helpers.js';

const serveSeconds = Number(process.argv[2] ?? 8);
const connections = Number(process.argv[3] ?? 10);
const MIB = 1024 * 1024;
const BIG = 20 * 1000 * 1000;

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-bench-store-'));
const clip = path.join(scratch, 'clip.mp4');
execFileSync('ffmpeg', [
  '-loglevel',
  'error',
  '-y',
  '-f',
  'lavfi',
  '-i',
  'testsrc2=size=1280x720:rate=30',
  '-f',
  'lavfi',
  '-i',
  'sine=frequency=440',
  '-t',
  '20',
  '-c:v',
  'libx264',
  '-preset',
  'ultrafast',
  '-pix_fmt',
  'yuv420p',
  '-c:a',
  'aac',
  clip,
]);
const big = path.join(scratch, 'big.bin');
fs.writeFileSync(big, randomBytes(BIG));

const s3 = await startS3Server();
if (!s3.endpoint) throw new Error('moto_server is needed for this bench');
const bucket = `bench-${randomBytes(4).toString('hex')}`;
const credentials = { accessKeyId: 'bench', secretAccessKey: 'bench' };
await new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials }).send(new CreateBucketCommand({ Bucket: bucket }));

async function jobDone(node: RunningService, contentId: string): Promise<string> {
  for (;;) {
    const [job] = await node.app.database.rows<{ status: string }>(
      sql`select status from video_jobs where content_id = ${contentId} order by created_at desc limit 1`,
    );
    if (job && (job.status === 'completed' || job.status === 'failed')) return job.status;
    await sleep(100);
  }
}

async function serve(url: string, range: boolean): Promise<{ reqPerSec: number; mbPerSec: number; errors: number; non2xx: number }> {
  const options = {
    url,
    connections,
    duration: serveSeconds,
    requests: [
      {
        setupRequest: (req: any) => {
          if (!range) return req;
          const start = Math.floor(Math.random() * (BIG - MIB));
          return { ...req, headers: { ...(req.headers ?? {}), range: `bytes=${start}-${start + MIB - 1}` } };
        },
      },
    ],
  };
  await autocannon({ ...options, duration: 1 });
  const r = await autocannon(options);
  return { reqPerSec: Math.round(r.requests.average), mbPerSec: Number((r.throughput.average / 1e6).toFixed(1)), errors: r.errors, non2xx: r.non2xx };
}

for (const storage of ['local', 's3'] as const) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `revs-bench-${storage}-`));
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    VIDEO_WORKERS: '1',
    RATE_LIMIT_SCALE: '1000',
    BCRYPT_ROUNDS: '4',
  };
  if (storage === 's3') {
    Object.assign(env, {
      MEDIA_STORAGE: 's3',
      S3_ENDPOINT: s3.endpoint,
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      S3_FORCE_PATH_STYLE: '1',
    });
  }
  const node = await startService(loadConfig(env), createLogger('silent'));
  try {
    const token = await benchUserToken(node.url, dataDir);
    const auth = { authorization: `Bearer ${token}` };
    const created = await fetch(`${node.url}/content/api/v1/content`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        price: 1,
        unit_price: 'VND',
        area: 50,
        unit_area: 'm2',
        content_info: [{ lang: 'en', project_name: 'Bench', description: 'Bench', address: 'D1' }],
      }),
    });
    const contentId = (await created.json()).data.id as string;
    const form = new FormData();
    form.append('files', new Blob([fs.readFileSync(clip)], { type: 'video/mp4' }), 'clip.mp4');
    const started = process.hrtime.bigint();
    const upload = await fetch(`${node.url}/file-processing/api/v1/upload?id=${contentId}`, { method: 'POST', headers: auth, body: form });
    if (upload.status !== 200) throw new Error(`upload ${upload.status} ${await upload.text()}`);
    const status = await jobDone(node, contentId);
    const processingSeconds = Number((Number(process.hrtime.bigint() - started) / 1e9).toFixed(2));
    const [row] = await node.app.database.rows<{ video: { playlist_path: string } }>(sql`select video from contents where id = ${contentId}`);
    const hls = path.posix.dirname(row.video.playlist_path);
    const variant = await (await fetch(`${node.url}/media/${hls}/360p/index.m3u8`)).text();
    const segment = variant.split('\n').find((l) => l.endsWith('.ts'))!;
    const segmentUrl = `${node.url}/media/${hls}/360p/${segment}`;
    const segmentBytes = (await (await fetch(segmentUrl)).arrayBuffer()).byteLength;
    await node.app.media.putFile(`content/${contentId}/original-big.mp4`, big);
    const segments = await serve(segmentUrl, false);
    const ranges = await serve(`${node.url}/media/content/${contentId}/original-big.mp4`, true);
    console.log(
      JSON.stringify({
        storage,
        cpus: os.cpus().length,
        loadavg1m: Number(os.loadavg()[0].toFixed(2)),
        connections,
        serveSeconds,
        processing: { input: '20 s 1280x720 30fps', status, seconds: processingSeconds },
        segment: { bytes: segmentBytes, ...segments },
        range1MiBOf20MB: ranges,
      }),
    );
  } finally {
    await node.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
s3.stop();
fs.rmSync(scratch, { recursive: true, force: true });
