/**
 * CORS from the stage's allow-list (CORS_ALLOWED_ORIGINS, set per stage in resources/stages.js). The same rules
 * answer the functions' responses here, the preflight that API Gateway answers when deployed (serverless.yml's `cors`
 * compiles each entry to the same regular expression) and the local gateway of `npm start`. Never with credentials.
 */

import contract from '../../resources/http-contract.js';

/** Response headers browser code may read besides the CORS-safelisted ones. */
const EXPOSED = contract.EXPOSED_HEADERS.join(', ');

/**
 * An allow-list entry as a regular expression, by the rule Serverless uses for the preflight's velocity template:
 * dots are literal and the first `*` stands for one or more characters (`http://localhost:*` is localhost on any
 * port).
 */
function entryPattern(entry: string): RegExp {
  const escaped = entry
    .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
    .replace('*', '.+')
    .replace(/\*/g, '\\*');
  return new RegExp(`^${escaped}$`);
}

/** True when the allow-list lets `origin` read responses; `*` alone allows every origin. */
export function originAllowed(origin: string, allowList: readonly string[]): boolean {
  return allowList.some((entry) => entry === '*' || entryPattern(entry).test(origin));
}

/**
 * The CORS headers of a response to a request from `origin` (undefined: no Origin header). The allowed origin is
 * echoed; `Vary: Origin` goes on every answer whose headers depend on the origin, so no cache can serve one
 * origin's answer to another.
 */
export function corsHeaders(origin: string | undefined, allowList: readonly string[]): Record<string, string> {
  if (allowList.includes('*')) return { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': EXPOSED };
  if (origin !== undefined && originAllowed(origin, allowList)) {
    return { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED, Vary: 'Origin' };
  }
  return allowList.length ? { Vary: 'Origin' } : {};
}
