/**
 * HTTP for the end-to-end tests: plain node:http, so a test can send what fetch refuses to (a foreign Host header)
 * and see every header exactly as the server sent it.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface HttpAnswer {
  status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  body: any;
}

export function http(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    // Node frames a DELETE's (or GET's) body only when told its length.
    const length = options.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(options.body)) };
    const outgoing = request(
      url,
      { method: options.method ?? 'GET', headers: { ...length, ...options.headers }, timeout: 30_000 },
      async (response) => {
        const chunks: Buffer[] = [];
        for await (const chunk of response) chunks.push(chunk as Buffer);
        const text = Buffer.concat(chunks).toString();
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        const headers = Object.fromEntries(
          Object.entries(response.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]),
        );
        resolve({ status: response.statusCode ?? 0, headers, text, body });
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer from ${url}`)));
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

/**
 * Sends `request` as raw bytes on a connection of its own (what no HTTP client would send: a malformed path, a folded
 * header, a foreign Host) and reads the answer until the server closes it; a gzipped body is unzipped.
 */
export function rawHttp(
  port: number,
  request: Buffer | string,
): Promise<{ status: number; headers: Record<string, string>; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.setTimeout(30_000, () => socket.destroy(new Error(`no answer on port ${port}`)));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const received = Buffer.concat(chunks);
      const end = received.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = received
        .subarray(0, end < 0 ? received.length : end)
        .toString('latin1')
        .split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const name = line.slice(0, line.indexOf(':')).toLowerCase();
        const value = line.slice(line.indexOf(':') + 1).trim();
        headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
      }
      const body = end < 0 ? Buffer.alloc(0) : received.subarray(end + 4);
      const text = (headers['content-encoding'] === 'gzip' && body.length ? gunzipSync(body) : body).toString('utf8');
      resolve({ status: Number(statusLine.split(' ')[1]), headers, text });
    });
  });
}
