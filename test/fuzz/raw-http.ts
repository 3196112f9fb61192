// An HTTP/1.1 client over a bare TCP socket. The fuzz test needs one because fetch refuses or
// rewrites exactly the requests it wants to send: `..` segments are resolved, encoded slashes and
// lone surrogates are rejected, bodies shorter than their Content-Length cannot be sent, and a
// chunked body cannot be left unterminated.
import net from 'node:net';

export interface RawRequest {
  method: string;
  /** Request target exactly as written on the request line (already percent-encoded as wanted). */
  target: string;
  /** Header lines in order; duplicates allowed. Values are written as latin1 bytes. */
  headers: [string, string][];
  /** Body bytes to write after the head. */
  body?: Buffer;
  /**
   * How the request ends:
   * - `complete`: everything is written, then we wait for an answer;
   * - `hangup`: the body is written, then the client half-closes and leaves (no answer expected).
   */
  ending?: 'complete' | 'hangup';
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

function decodeChunked(buf: Buffer): Buffer | null {
  const parts: Buffer[] = [];
  let i = 0;
  for (;;) {
    const lineEnd = buf.indexOf('\r\n', i);
    if (lineEnd < 0) return null;
    const size = parseInt(buf.subarray(i, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size)) return null;
    if (size === 0) return Buffer.concat(parts);
    const start = lineEnd + 2;
    if (buf.length < start + size + 2) return null;
    parts.push(buf.subarray(start, start + size));
    i = start + size + 2;
  }
}

/** Parses a full response out of `buf`, or returns null while it is still incomplete. */
function parseResponse(buf: Buffer, closed: boolean): RawResponse | null {
  const headEnd = buf.indexOf('\r\n\r\n');
  if (headEnd < 0) return null;
  const [statusLine, ...lines] = buf.subarray(0, headEnd).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(statusLine.split(' ')[1]);
  const rest = buf.subarray(headEnd + 4);
  let body: Buffer | null;
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    body = rest.length >= length ? rest.subarray(0, length) : null;
  } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    body = decodeChunked(rest);
  } else {
    // No framing: the body runs to the end of the connection (or is empty for 204/304).
    body = status === 204 || status === 304 ? Buffer.alloc(0) : closed ? rest : null;
  }
  return body === null ? null : { status, headers, text: body.toString('utf8') };
}

export class NoAnswer extends Error {}

/**
 * Sends one request on a fresh connection. Resolves with the answer (`complete`), or with null
 * once the connection is gone (`hangup`). Rejects with NoAnswer when a complete request gets no
 * full answer within `timeoutMs` or the server closes without one.
 */
export function sendRaw(base: string, req: RawRequest, timeoutMs = 15_000): Promise<RawResponse | null> {
  const { hostname, port } = new URL(base);
  const head = `${req.method} ${req.target} HTTP/1.1\r\n` + req.headers.map(([k, v]) => `${k}: ${v}\r\n`).join('') + '\r\n';
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      fn();
    };
    const timer = setTimeout(() => {
      if (req.ending === 'hangup') settle(() => resolve(null));
      else settle(() => reject(new NoAnswer(`no complete answer within ${timeoutMs} ms (got ${received.length} bytes)`)));
    }, timeoutMs);
    socket.on('data', (d) => {
      received = Buffer.concat([received, d]);
      const res = parseResponse(received, false);
      if (res) settle(() => resolve(res));
    });
    // A server may refuse early and close while we still write; what it answered still counts.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const res = parseResponse(received, true);
      if (res) settle(() => resolve(res));
      else if (req.ending === 'hangup') settle(() => resolve(null));
      else
        settle(() =>
          reject(new NoAnswer(`connection closed without a complete answer (got ${received.length} bytes: ${received.subarray(0, 200).toString('latin1')})`)),
        );
    });
    socket.write(Buffer.from(head, 'latin1'));
    if (req.body?.length) socket.write(req.body);
    if (req.ending === 'hangup') socket.end();
  });
}
