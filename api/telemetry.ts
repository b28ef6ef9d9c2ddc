/**
 * What the functions tell their operators: structured JSON log lines through Powertools Logger (one logger per
 * function, created here once), and the number of DynamoDB items each request read. Lines carry `service` and
 * `stage` always, the Lambda context the logger is given per invocation (function, its request id, cold start), and
 * the request's own keys explicitly (`request_id`, the one to correlate by): serverless offline runs several requests
 * of one function in one process, where a line's Lambda context may be a neighbouring request's.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { DatabaseError, DatabaseMisconfigured } from '@trading-bot-api/core/store/errors';
import { config } from './config';
import { HTTP } from './errors';

export const SERVICE = 'trading-bot-api';

export const logger = new Logger({ serviceName: SERVICE, logLevel: config.logLevel, persistentKeys: { stage: config.stage } });

interface Tally {
  itemsRead: number;
}

const tallies = new AsyncLocalStorage<Tally>();

/** Runs `work` with a fresh count of DynamoDB items read, which its access line reports (logAccess). */
export function withReadTally<T>(work: () => Promise<T>): Promise<T> {
  return tallies.run({ itemsRead: 0 }, work);
}

/** Adds to the count of the request in progress (called by the API store for every DynamoDB call). */
export function countItemsRead(items: number): void {
  const tally = tallies.getStore();
  if (tally) tally.itemsRead += items;
}

/**
 * Logs why the database did not serve a call, under `keys` (the request id, the route…), in one shape wherever it is
 * said: an outage as a warning (`fault`, `reason`), a misconfiguration as an error (`misconfigured`, `reason`,
 * `cause`: the tables and DynamoDB's words). `what` is the line's message for each. Anything else is not the
 * database's: false, and the caller says it its own way.
 */
export function logDatabaseFailure(
  error: unknown,
  keys: Record<string, unknown>,
  what: { unavailable: string; misconfigured: string },
): boolean {
  if (error instanceof DatabaseError) logger.warn(what.unavailable, { ...keys, fault: error.fault, reason: error.reason });
  else if (error instanceof DatabaseMisconfigured)
    logger.error(what.misconfigured, { ...keys, misconfigured: error.kind, reason: error.reason, cause: error.message });
  else return false;
  return true;
}

/**
 * One access line per request, the last thing done: method, route, status, duration since `started`, DynamoDB items
 * read, the API key's id (never the key), and the same request id the client got in X-Request-Id. A 503 is a
 * warning, a 500 an error (its stack is on the line before); never the event or a body. The API's composition
 * (http/handler.ts) and the dashboard's files both say it.
 */
export function logAccess(event: Partial<APIGatewayProxyEvent>, requestId: string, status: number, started: number): void {
  const authorizer = event.requestContext?.authorizer as Record<string, unknown> | null | undefined;
  const line = {
    request_id: requestId,
    method: event.httpMethod,
    route: event.resource,
    status,
    durationMs: Math.round((performance.now() - started) * 10) / 10,
    itemsRead: tallies.getStore()?.itemsRead ?? 0,
    keyId: typeof authorizer?.keyId === 'string' ? authorizer.keyId : null,
  };
  if (status >= 500) (status === HTTP.SERVICE_UNAVAILABLE ? logger.warn : logger.error).call(logger, 'request', line);
  else logger.info('request', line);
}
