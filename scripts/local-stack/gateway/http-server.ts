/**
 * The plumbing every door of the local stack shares (the API gateway, the Lambda door, the database door): an answer
 * as a value, one listener on 127.0.0.1, the loopback Host check, and refusals in the stage's gateway-response shape.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import contract from '../../../resources/http-contract.js';
import stages from '../../../resources/stages.js';

export type Headers = Record<string, string>;

/** What a door answers: a status, headers and a body, sent whole (the shape of a problem answer and a gateway response). */
export interface Answer {
  statusCode: number;
  headers: Headers;
  body: string | Buffer;
}

/** Host names a local request may carry: loopback only, any port. */
const LOOPBACK_HOST = /^(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i;

/**
 * The Host header check against DNS rebinding: a loopback name, or one of `allowed` (ALLOWED_HOSTS: the names a
 * reverse proxy forwards, which the operator chose; none for the Lambda and database doors), with any port; names
 * compare without case.
 */
export function isAllowedHost(host: string | undefined, allowed: readonly string[] = []): boolean {
  if (host !== undefined && LOOPBACK_HOST.test(host)) return true;
  const name = host?.toLowerCase().replace(/:\d{1,5}$/, '');
  return name !== undefined && allowed.some((entry) => entry.toLowerCase() === name);
}

/** Whether a request carries what only a web page sends (an Origin, a Sec-Fetch header): the AWS CLI and SDKs never do. */
export function fromWebPage(req: IncomingMessage): boolean {
  return req.headers.origin !== undefined || req.headers['sec-fetch-site'] !== undefined || req.headers['sec-fetch-mode'] !== undefined;
}

export function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A refusal of this gateway's own, in the shape and with the headers of the stage's gateway responses. */
export function localProblem(problem: Parameters<typeof contract.problemAnswer>[0]) {
  return contract.problemAnswer({ ...problem, contentType: contract.GATEWAY_PROBLEM_CONTENT_TYPE });
}

/** The answer to a request addressed to another host than this machine's loopback names. */
export function misdirected(requestId: string): Answer {
  return localProblem({
    code: 'MISDIRECTED_REQUEST',
    detail: 'This local server answers only requests addressed to localhost, 127.0.0.1 or [::1].',
    requestId,
  });
}

export function send(res: ServerResponse, answer: Answer): void {
  if (res.headersSent) return;
  res.writeHead(answer.statusCode, { ...answer.headers, 'Content-Length': String(Buffer.byteLength(answer.body)) });
  res.end(answer.body);
}

/** A request's body, or undefined once it grows past `limit` bytes. */
export async function readBody(req: IncomingMessage, limit = Number.POSITIVE_INFINITY): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The headers of an answer passed on, but those `dropped` names (hop-by-hop and length headers, the door's own). */
export function keptHeaders(headers: Record<string, string | string[] | undefined>, dropped: RegExp): Headers {
  const kept: Headers = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !dropped.test(name)) kept[name] = Array.isArray(value) ? value.join(', ') : value;
  return kept;
}

/** A server on 127.0.0.1 (or `address`): its port (the one asked for, or any free one for 0) and how to close it. */
export async function listen(
  port: number,
  settings: { maxHeaderSize?: number; onMalformed?: (error: NodeJS.ErrnoException, socket: Duplex) => void; address?: string },
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
) {
  const server: Server = createServer({ maxHeaderSize: settings.maxHeaderSize }, (req, res) => {
    handle(req, res).catch((error: Error) => {
      // A fault of this gateway itself: still a problem body, never an empty 5xx.
      console.error(`local gateway: ${error.stack ?? error.message}`);
      send(
        res,
        localProblem({
          code: 'SERVICE_UNAVAILABLE',
          detail: 'The local gateway failed to complete the request. Retry later.',
          requestId: randomUUID(),
          retryAfterSeconds: stages.DEFAULTS.retryAfterSeconds,
        }),
      );
    });
  });
  // Otherwise Node's own answer: an empty 400 or 431 (the Lambda port and the database door serve SDKs, not the API).
  if (settings.onMalformed) server.on('clientError', settings.onMalformed);
  server.keepAliveTimeout = 5000;
  server.listen(port, settings.address ?? '127.0.0.1');
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => Promise.reject(error))]);
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the local gateway did not get a port');
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
