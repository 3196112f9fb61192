// TikTok's Content Posting API "direct post" with FILE_UPLOAD (init, chunked PUT of the bytes,
// status fetch). Base URLs come from configuration, so a stand-in server can play TikTok in tests.
import { Readable } from 'node:stream';
import type { Config } from '../config.js';
import { API_TIMEOUT_MS, TRANSFER_TIMEOUT_MS, callPlatform, cleanCode, readJson, upstreamError } from './upstream.js';
import type { OutboundGate } from '../outbound/index.js';

export const TIKTOK_PRIVACY_LEVELS = ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'] as const;
type TikTokPrivacyLevel = (typeof TIKTOK_PRIVACY_LEVELS)[number];

/** TikTok's media transfer rules: chunks of 5-64 MB, a file under 5 MB (or up to 64 MB) may go whole,
 * the count is floor(size / chunk_size) and the last chunk takes the remainder (at most 128 MB). */
const MAX_SINGLE_CHUNK = 64 * 1024 * 1024;
const TIKTOK_CHUNK_BYTES = 10 * 1024 * 1024;

interface ChunkPlan {
  chunkSize: number;
  totalChunkCount: number;
  /** Inclusive byte ranges, in order. */
  ranges: { start: number; end: number }[];
}

export function planChunks(videoSize: number, chunkBytes = TIKTOK_CHUNK_BYTES): ChunkPlan {
  if (videoSize <= 0) throw new Error('empty video');
  if (videoSize <= MAX_SINGLE_CHUNK) return { chunkSize: videoSize, totalChunkCount: 1, ranges: [{ start: 0, end: videoSize - 1 }] };
  const totalChunkCount = Math.floor(videoSize / chunkBytes);
  const ranges = Array.from({ length: totalChunkCount }, (_, i) => ({
    start: i * chunkBytes,
    end: i === totalChunkCount - 1 ? videoSize - 1 : (i + 1) * chunkBytes - 1,
  }));
  return { chunkSize: chunkBytes, totalChunkCount, ranges };
}

interface TikTokPost {
  accessToken: string;
  /** The video's bytes (a range of them), from the media store. */
  read: (range?: { start: number; end: number }) => Promise<Readable>;
  size: number;
  caption: string;
  privacyLevel: TikTokPrivacyLevel;
  /** Called as soon as TikTok names the publish id (so it is recorded even if the transfer fails). */
  onPublishId?: (publishId: string) => Promise<void>;
}

/** A TikTok API endpoint under the configured base URL (which may end in a slash). */
export const tiktokApiUrl = (config: Config, path: string): string => `${config.TIKTOK_API_BASE_URL.replace(/\/+$/, '')}${path}`;

export class TikTokClient {
  constructor(
    private readonly config: Config,
    /** Checks the upload URLs the platform hands back (CONTRACT §19 "Outbound requests"). */
    private readonly gate: OutboundGate,
  ) {}

  private api(path: string): string {
    return tiktokApiUrl(this.config, path);
  }

  /** Direct post: init, send the bytes chunk by chunk (streamed from disk), then ask the status once. */
  async publishVideo(post: TikTokPost): Promise<{ publishId: string; status: string }> {
    const plan = planChunks(post.size);
    const init = await this.postApi(post.accessToken, '/v2/post/publish/video/init/', 'upload init', {
      post_info: { title: post.caption, privacy_level: post.privacyLevel, disable_duet: false, disable_comment: false, disable_stitch: false },
      source_info: { source: 'FILE_UPLOAD', video_size: post.size, chunk_size: plan.chunkSize, total_chunk_count: plan.totalChunkCount },
    });
    const publishId = init.publish_id;
    const uploadUrl = init.upload_url;
    if (typeof publishId !== 'string' || typeof uploadUrl !== 'string' || !/^https?:\/\//.test(uploadUrl)) {
      throw upstreamError('tiktok', 'invalid_init_response', 'upload init');
    }
    await post.onPublishId?.(publishId);

    for (const range of plan.ranges) {
      const length = range.end - range.start + 1;
      const stream = await post.read(range);
      const res = await callPlatform(
        'tiktok',
        'video transfer',
        uploadUrl,
        {
          method: 'PUT',
          headers: {
            'Content-Type': 'video/mp4',
            'Content-Length': String(length),
            'Content-Range': `bytes ${range.start}-${range.end}/${post.size}`,
          },
          body: Readable.toWeb(stream) as ReadableStream,
          duplex: 'half',
        },
        TRANSFER_TIMEOUT_MS,
        this.gate,
      ).finally(() => stream.destroy());
      if (res.status !== 201 && res.status !== 206 && res.status !== 200) {
        const body = await readJson(res);
        throw upstreamError('tiktok', cleanCode(body?.error?.code, `http_${res.status}`), 'video transfer');
      }
      await res.body?.cancel().catch(() => undefined);
    }

    // The bytes are with TikTok now: a status we cannot read does not undo the upload.
    let fetched: Record<string, any> | null;
    try {
      fetched = await this.postApi(post.accessToken, '/v2/post/publish/status/fetch/', 'status fetch', { publish_id: publishId });
    } catch {
      fetched = null;
    }
    const status = typeof fetched?.status === 'string' ? cleanCode(fetched.status, 'PROCESSING_UPLOAD') : 'PROCESSING_UPLOAD';
    if (status === 'FAILED') throw upstreamError('tiktok', cleanCode(fetched?.fail_reason, 'FAILED'), 'publish');
    return { publishId, status };
  }

  private async postApi(accessToken: string, path: string, step: string, payload: unknown): Promise<Record<string, any>> {
    const res = await callPlatform(
      'tiktok',
      step,
      this.api(path),
      {
        method: 'POST',
        headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json; charset=UTF-8' },
        body: JSON.stringify(payload),
      },
      API_TIMEOUT_MS,
    );
    const body = await readJson(res);
    const code = body?.error?.code;
    if (!res.ok || !body || (code !== undefined && code !== 'ok')) {
      throw upstreamError('tiktok', cleanCode(code, `http_${res.status}`), step);
    }
    return (body.data ?? {}) as Record<string, any>;
  }
}
