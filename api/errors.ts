import contract from '../resources/http-contract.js';

/**
 * Typed HTTP errors. The API's operations throw them; the error middleware in `api/http/handler.ts` is the one place
 * that turns them into RFC 9457 problem+json responses. Anything else thrown becomes a generic 500.
 */
export const HTTP = {
  OK: 200,
  NOT_MODIFIED: 304,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

/** The problem codes of the API, each with its status and title (resources/http-contract.js). */
export type ProblemCode = keyof typeof contract.PROBLEMS;

export interface ParameterError {
  parameter: string;
  message: string;
}

/** An error that has a meaning for the client: its status, code and a detail safe to show. */
export class HttpProblem extends Error {
  readonly status: number;
  readonly title: string;

  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly errors?: ParameterError[],
    /** The account id a 404 was for: the error handler suggests the nearest ones the caller may see. */
    readonly accountId?: string,
  ) {
    super(detail);
    this.name = 'HttpProblem';
    ({ status: this.status, title: this.title } = contract.PROBLEMS[code]);
  }
}

/** 400 for one or more bad parameters, each named. */
export function invalidParameters(errors: ParameterError[]): HttpProblem {
  const detail = errors.map((error) => `${error.parameter}: ${error.message}`).join('; ');
  return new HttpProblem('INVALID_PARAMETER', detail, errors);
}

/** 400 for a single bad parameter. */
export function invalidParameter(parameter: string, message: string): HttpProblem {
  return invalidParameters([{ parameter, message }]);
}

/** 404 for an account that does not exist or that the caller may not see: the two are indistinguishable. */
export function accountNotFound(accountId: string): HttpProblem {
  // Only the start of the id is echoed: a path may be kilobytes of anything.
  const shown = accountId.length > 64 ? `${accountId.slice(0, 64)}…` : accountId;
  // No account may be called "all" (the writer refuses it): "all" here is an operation that has no fleet form.
  if (accountId === 'all') {
    return new HttpProblem(
      'ACCOUNT_NOT_FOUND',
      'No account "all": equity is per account (GET /api/{account}/equity for each id GET /api/accounts lists); "all" covers every account in /api/all/balance, /trades, /status and /pnl.',
    );
  }
  return new HttpProblem('ACCOUNT_NOT_FOUND', `No account ${JSON.stringify(shown)}.`, undefined, accountId);
}

/** 404 for an account that exists and that no exchange feed reconciles (1.8). */
export function notReconciled(accountId: string): HttpProblem {
  return new HttpProblem(
    'NOT_FOUND',
    `Account ${JSON.stringify(accountId)} is not reconciled: no exchange feed names it (--reconcile-with, or "reconcileWith" in the feed's config file).`,
  );
}

/** 406: an Accept header that none of the operation's media types satisfies; the detail lists them. */
export function notAcceptable(offered: readonly string[]): HttpProblem {
  return new HttpProblem('NOT_ACCEPTABLE', `This operation answers ${offered.join(' or ')}; the Accept header allows none of them.`);
}

/** 401: no API key, or one that is not known. */
export function unauthorized(detail = 'A valid API key is required (x-api-key header).'): HttpProblem {
  return new HttpProblem('UNAUTHORIZED', detail);
}

/** 503: a dependency failed or is too slow; the client may retry after Retry-After. */
export function serviceUnavailable(detail = 'The database is unavailable. Retry later.'): HttpProblem {
  return new HttpProblem('SERVICE_UNAVAILABLE', detail);
}
