/**
 * LAMBDA_PORT: the Lambda Invoke API for the functions that no route serves (such as the scheduled probe), passed to
 * serverless offline's Lambda socket. HTTP functions cannot be invoked here: their caller's identity is only ever
 * established by the API gateway, on PORT. Requests a web page would send are refused.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { requestOverSocket } from '../offline';
import { type Answer, firstHeader, fromWebPage, isAllowedHost, keptHeaders, listen, misdirected, readBody, send } from './http-server';
import { percentDecoded } from './routes';

/** Lambda's own limit for a synchronous invocation's payload. */
const MAX_PAYLOAD_BYTES = 6 * 2 ** 20;

export interface LambdaDoorOptions {
  /** Port on 127.0.0.1 (0: any free port). */
  port: number;
  /** serverless offline's Lambda API socket. */
  lambdaSocket: string;
  /** The functions that may be invoked, by deployed name (those no route serves or guards). */
  invokable: ReadonlySet<string>;
  /** The API's port, named when an HTTP function is asked for. */
  apiPort: () => number;
}

function lambdaError(status: number, type: string, message: string): Answer {
  return {
    statusCode: status,
    headers: { 'Content-Type': 'application/json', 'x-amzn-ErrorType': type },
    body: JSON.stringify({ Type: 'User', message }),
  };
}

async function handleLambda(options: LambdaDoorOptions, req: IncomingMessage, body: Buffer): Promise<Answer> {
  const requestId = randomUUID();
  if (!isAllowedHost(req.headers.host)) return misdirected(requestId);
  // A browser always says where a cross-site or same-site request comes from; the AWS CLI and SDKs never do.
  if (fromWebPage(req)) return lambdaError(403, 'AccessDeniedException', 'Requests from web pages are refused.');
  const match = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(new URL(req.url ?? '/', 'http://localhost').pathname);
  if (!match || req.method !== 'POST')
    return lambdaError(404, 'ResourceNotFoundException', 'Only Invoke (POST /2015-03-31/functions/{name}/invocations) is served.');
  const name = percentDecoded(match[1]) ?? match[1];
  if (!options.invokable.has(name)) {
    return lambdaError(
      403,
      'AccessDeniedException',
      `${name} cannot be invoked here: functions behind the API are reached through the API on port ${options.apiPort()} (their caller's identity is established there); invokable: ${[...options.invokable].join(', ') || 'none'}.`,
    );
  }
  const answer = await requestOverSocket(options.lambdaSocket, {
    method: 'POST',
    path: `/2015-03-31/functions/${encodeURIComponent(name)}/invocations`,
    headers: {
      'content-type': 'application/json',
      'x-amz-invocation-type': firstHeader(req.headers['x-amz-invocation-type']) ?? 'RequestResponse',
    },
    body,
  });
  // Lambda's answer: its JSON, with only the headers that say whether (and why) the invocation failed.
  const headers = { ...keptHeaders(answer.headers, /^(?!x-amz-function-error$|x-amzn-errortype$)/), 'Content-Type': 'application/json' };
  return { statusCode: answer.status, headers, body: answer.body };
}

/** Starts the Lambda Invoke API on 127.0.0.1. */
export function startLambdaDoor(options: LambdaDoorOptions) {
  return listen(options.port, {}, async (req, res) => {
    const body = await readBody(req, MAX_PAYLOAD_BYTES);
    send(res, body ? await handleLambda(options, req, body) : lambdaError(413, 'RequestTooLargeException', 'The payload exceeds 6 MB.'));
  });
}
