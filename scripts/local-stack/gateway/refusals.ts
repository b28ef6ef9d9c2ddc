import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { localProblem } from './http-server';

/** API Gateway's limit on a request's line and headers together, in bytes: beyond it, 431. */
export const API_GATEWAY_HEADER_LIMIT = 10_240;

/**
 * A request to the API that Node's parser refuses before any handler sees it (a raw space, NUL or non-ASCII byte in
 * the path, an obs-fold header, a header block over the limit): answered as a problem, like every other refusal,
 * then closed, with `extraHeaders` (the stage's CORS headers). Written to the raw socket: no response object exists
 * for a request that never parsed.
 */
export function refuseMalformed(error: NodeJS.ErrnoException, socket: Duplex, extraHeaders: Record<string, string> = {}): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const { statusCode, headers, body } = localProblem({
    status: tooLarge ? 431 : 400,
    code: 'INVALID_PARAMETER',
    title: tooLarge ? 'Request header fields too large' : 'Bad request',
    detail: tooLarge
      ? `The request line and headers are over ${API_GATEWAY_HEADER_LIMIT} bytes, API Gateway's limit: send a shorter query or fewer headers.`
      : 'The request is not valid HTTP/1.1: a path must be percent-encoded (no raw space, control or non-ASCII byte) and a header may not continue on the next line.',
    requestId: randomUUID(),
  });
  const reason = tooLarge ? 'Request Header Fields Too Large' : 'Bad Request';
  const head = Object.entries({ ...headers, ...extraHeaders, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' }).map(
    ([name, value]) => `${name}: ${value}\r\n`,
  );
  socket.end(`HTTP/1.1 ${statusCode} ${reason}\r\n${head.join('')}\r\n${body}`);
}
