// YouTube: the YouTube Data API v3 resumable upload (a session is opened with the metadata, then
// the bytes are PUT to its URI in one streamed request). Base URLs come from configuration, so a
// stand-in can play Google.
import { Readable } from 'node:stream';
import type { Config } from '../config.js';
import { TRANSFER_TIMEOUT_MS, callPlatform, cleanCode, readJson, upstreamError } from './upstream.js';
import type { OutboundGate } from '../outbound/index.js';

export const YOUTUBE_PRIVACY = ['private', 'unlisted', 'public'] as const;
type YouTubePrivacy = (typeof YOUTUBE_PRIVACY)[number];

interface YouTubeUpload {
  accessToken: string;
  /** The video's bytes (a range of them), from the media store. */
  read: (range?: { start: number; end: number }) => Promise<Readable>;
  size: number;
  title: string;
  description: string;
  tags: string[];
  categoryId: string;
  privacyStatus: YouTubePrivacy;
}

/** Google's error body `{error: {errors: [{reason}], status}}`, or the OAuth form `{error: 'x'}`. */
export function googleErrorCode(body: Record<string, any> | null, status: number): string {
  const err = body?.error;
  if (typeof err === 'string') return cleanCode(err, `http_${status}`);
  return cleanCode(err?.errors?.[0]?.reason ?? err?.status, `http_${status}`);
}

export class YouTubeClient {
  constructor(
    private readonly config: Config,
    /** Checks the upload URLs the platform hands back (CONTRACT §19 "Outbound requests"). */
    private readonly gate: OutboundGate,
  ) {}

  /** Opens a resumable session with the metadata, then streams the file to the session URI. */
  async uploadVideo(upload: YouTubeUpload): Promise<{ videoId: string; status: string }> {
    const base = this.config.YOUTUBE_API_BASE_URL.replace(/\/+$/, '');
    const init = await callPlatform('youtube', 'upload session', `${base}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${upload.accessToken}`,
        'Content-Type': 'application/json; charset=UTF-8',
        'X-Upload-Content-Length': String(upload.size),
        'X-Upload-Content-Type': 'video/mp4',
      },
      body: JSON.stringify({
        snippet: { title: upload.title, description: upload.description, tags: upload.tags, categoryId: upload.categoryId },
        status: { privacyStatus: upload.privacyStatus },
      }),
    });
    const sessionUri = init.headers.get('location');
    if (!init.ok || !sessionUri || !/^https?:\/\//.test(sessionUri)) {
      throw upstreamError('youtube', init.ok ? 'missing_session_uri' : googleErrorCode(await readJson(init), init.status), 'upload session');
    }
    await init.body?.cancel().catch(() => undefined);

    const stream = await upload.read();
    const res = await callPlatform(
      'youtube',
      'video transfer',
      sessionUri,
      {
        method: 'PUT',
        headers: { Authorization: `Bearer ${upload.accessToken}`, 'Content-Type': 'video/mp4', 'Content-Length': String(upload.size) },
        body: Readable.toWeb(stream) as ReadableStream,
        duplex: 'half',
      },
      TRANSFER_TIMEOUT_MS,
      this.gate,
    ).finally(() => stream.destroy());
    const body = await readJson(res);
    if ((res.status !== 200 && res.status !== 201) || typeof body?.id !== 'string') {
      throw upstreamError('youtube', res.ok ? 'invalid_upload_response' : googleErrorCode(body, res.status), 'video transfer');
    }
    const status = typeof body.status?.uploadStatus === 'string' ? cleanCode(body.status.uploadStatus, 'uploaded') : 'uploaded';
    return { videoId: cleanCode(body.id, 'unknown'), status };
  }
}
