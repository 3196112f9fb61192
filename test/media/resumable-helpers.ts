// Helpers of the resumable-upload tests: raw tus requests (fetch and node:http for bodies cut
// off mid-way), the real tus client (tus-js-client in Node), and where the upload bytes live.
import http from 'node:http';
import net from 'node:net';
import * as tus from 'tus-js-client';
import { sql } from 'drizzle-orm';
import type { RunningService } from '../../service.js';
import { storedMedia } from '../helpers/stored-media.js';

export const RESUMABLE = '/file-processing/api/v1/resumable';
const TUS = { 'Tus-Resumable': '1.0.0' };

export interface TusAnswer {
  status: number;
  headers: Headers;
  /** Parsed JSON (error envelopes), or null. */
  body: any;
  text: string;
}

export const metadataHeader = (metadata: Record<string, string>) =>
  Object.entries(metadata)
    .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
    .join(',');

/** One tus request with the bearer token (null: none) and the Tus-Resumable header (unless given). */
export async function tusRequest(
  baseUrl: string,
  method: string,
  urlPath: string,
  options: { token?: string | null; headers?: Record<string, string>; body?: Buffer } = {},
): Promise<TusAnswer> {
  const headers: Record<string, string> = { ...TUS, ...(options.headers ?? {}) };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const res = await fetch(baseUrl + urlPath, { method, headers, body: options.body ? new Uint8Array(options.body) : undefined });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: jsonOrNull(text), text };
}

function jsonOrNull(text: string): any {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** POST (creation): the upload's path from Location on 201. */
export async function createUpload(
  baseUrl: string,
  token: string | null,
  size: number,
  metadata: Record<string, string>,
  body?: Buffer,
): Promise<TusAnswer & { location: string }> {
  const headers: Record<string, string> = { 'Upload-Length': String(size), 'Upload-Metadata': metadataHeader(metadata) };
  if (body) headers['Content-Type'] = 'application/offset+octet-stream';
  const answer = await tusRequest(baseUrl, 'POST', RESUMABLE, { token, headers, body });
  return { ...answer, location: answer.headers.get('location') ?? '' };
}

export const patchUpload = (baseUrl: string, token: string | null, location: string, offset: number, bytes: Buffer) =>
  tusRequest(baseUrl, 'PATCH', location, {
    token,
    headers: { 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream' },
    body: bytes,
  });

export const headUpload = (baseUrl: string, token: string | null, location: string) => tusRequest(baseUrl, 'HEAD', location, { token });

/** A PATCH on a connection of its own (node:http sends bodies fetch cannot), its body still to write. */
function patchRequest(baseUrl: string, token: string, location: string, offset: number, framing: Record<string, string>): http.ClientRequest {
  const url = new URL(baseUrl);
  return http.request({
    host: url.hostname,
    port: url.port,
    method: 'PATCH',
    path: location,
    agent: false,
    headers: { ...TUS, authorization: `Bearer ${token}`, 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream', ...framing },
  });
}

/** A PATCH whose body is sent chunked (no Content-Length), in the parts given. */
export function chunkedPatch(
  baseUrl: string,
  token: string,
  location: string,
  offset: number,
  parts: Buffer[],
  /** Awaited after every part but the last has been sent (e.g. until the node has read them). */
  beforeLast?: () => Promise<void>,
): Promise<TusAnswer> {
  return new Promise((resolve, reject) => {
    const req = patchRequest(baseUrl, token, location, offset, { 'Transfer-Encoding': 'chunked' });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value);
        resolve({ status: res.statusCode ?? 0, headers, body: jsonOrNull(text), text });
      });
    });
    // The server may answer (and stop reading) before the last part is written.
    req.on('error', reject);
    for (const part of parts.slice(0, -1)) req.write(part);
    const last = parts.at(-1);
    void (beforeLast ?? (async () => undefined))().then(() => req.end(last), reject);
  });
}

/**
 * A PATCH whose connection is held open after `sent` bytes of its body: `finish()` sends the rest
 * and resolves with the answer; `cut()` drops the connection there (as a phone losing signal).
 */
export function openPatch(baseUrl: string, token: string, location: string, offset: number, bytes: Buffer, sent: number) {
  const req = patchRequest(baseUrl, token, location, offset, { 'Content-Length': String(bytes.length) });
  const answered = new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
  });
  answered.catch(() => undefined);
  const written = new Promise<void>((resolve) => req.write(bytes.subarray(0, sent), () => resolve()));
  return {
    /** Resolves once the first part has left this process. */
    written,
    finish: async () => {
      req.end(bytes.subarray(sent));
      return answered;
    },
    cut: async () => {
      await written;
      req.destroy();
    },
  };
}

/** Polls HEAD until the upload's offset is `expected` (the test's timeout bounds it). */
export async function offsetReaches(baseUrl: string, token: string, location: string, expected: number): Promise<void> {
  for (;;) {
    const head = await headUpload(baseUrl, token, location);
    if (Number(head.headers.get('upload-offset')) === expected) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Polls until a PATCH holds the upload's lease (its writer). The disk shows a PATCH's bytes in the
 * offset as they land, the bucket only when the PATCH ends, so tests of a second writer wait here.
 */
export async function leaseTaken(node: RunningService, location: string): Promise<void> {
  const id = location.split('/').pop()!;
  for (;;) {
    const [row] = await node.app.database.rows<{ locked_by: string | null }>(sql`select locked_by from resumable_uploads where id = ${id}`);
    if (row?.locked_by) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The unfinished uploads kept on a node's storage (the disk or the bucket). */
export const resumableFiles = (node: RunningService): Promise<string[]> => storedMedia(node).resumableUploads();

export interface ClientRequestLog {
  method: string;
  url: string;
  offset: string | null;
  status?: number;
  responseOffset?: string | null;
}

/**
 * Uploads `data` with tus-js-client (a real tus client, in Node): resolves with the upload URL and
 * the requests it made (method, Upload-Offset sent, status and Upload-Offset received).
 */
export function uploadWithClient(
  endpoint: string,
  token: string,
  data: Buffer,
  metadata: Record<string, string>,
  options: Partial<tus.UploadOptions> = {},
): Promise<{ url: string; requests: ClientRequestLog[] }> {
  const requests: ClientRequestLog[] = [];
  return new Promise((resolve, reject) => {
    const upload = new tus.Upload(data, {
      endpoint,
      headers: { Authorization: `Bearer ${token}` },
      metadata,
      retryDelays: [0, 100, 300, 600, 1000, 2000],
      ...options,
      onBeforeRequest: (req) => {
        requests.push({ method: req.getMethod(), url: req.getURL(), offset: req.getHeader('Upload-Offset') ?? null });
      },
      onAfterResponse: (req, res) => {
        const entry = [...requests].reverse().find((r) => r.method === req.getMethod() && r.status === undefined);
        if (entry) {
          entry.status = res.getStatus();
          entry.responseOffset = res.getHeader('Upload-Offset') ?? null;
        }
      },
      onSuccess: () => resolve({ url: upload.url ?? '', requests }),
      onError: (err) => reject(err),
    });
    upload.start();
  });
}

/**
 * A TCP proxy in front of a node that drops the first connection carrying more than `cutAfter`
 * bytes towards the node, mid-request (a phone losing signal); later connections pass whole.
 */
export async function cuttingProxy(target: string, cutAfter: number): Promise<{ url: string; cuts: () => number; close: () => Promise<void> }> {
  const upstream = new URL(target);
  let cuts = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const node = net.connect(Number(upstream.port), upstream.hostname);
    sockets.add(client).add(node);
    let forwarded = 0;
    client.on('data', (chunk) => {
      if (cuts === 0 && forwarded + chunk.length > cutAfter) {
        node.write(chunk.subarray(0, Math.max(0, cutAfter - forwarded)), () => {
          cuts++;
          node.destroy();
          client.destroy();
        });
        forwarded = cutAfter;
        return;
      }
      forwarded += chunk.length;
      node.write(chunk);
    });
    node.on('data', (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      node.destroy();
    };
    client.on('close', end).on('error', end);
    node.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    cuts: () => cuts,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
