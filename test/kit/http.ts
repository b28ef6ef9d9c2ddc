/**
 * HTTP for the end-to-end tests: plain node:http, so a test can send what fetch refuses to (a foreign Host header)
 * and see every header exactly as the server sent it.
 */
import { request } from 'node:http';

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
