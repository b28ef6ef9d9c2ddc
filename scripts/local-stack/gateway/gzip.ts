import type { IncomingMessage } from 'node:http';
import { gzipSync } from 'node:zlib';
import { type Answer, firstHeader } from './http-server';

/**
 * As API Gateway with `minimumCompressionSize`: a body of that many bytes or more is gzipped for a client whose
 * Accept-Encoding allows it (a 304, having no body, never is).
 */
export function compressed(req: IncomingMessage, answer: Answer, minimumSize: number | undefined): Answer {
  const accepts = /\bgzip\b/i.test(firstHeader(req.headers['accept-encoding']) ?? '');
  if (minimumSize === undefined || !accepts || Buffer.byteLength(answer.body) < minimumSize || answer.headers['content-encoding'])
    return answer;
  return { ...answer, headers: { ...answer.headers, 'Content-Encoding': 'gzip' }, body: gzipSync(answer.body) };
}
