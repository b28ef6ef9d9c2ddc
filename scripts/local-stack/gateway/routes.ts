import type { HttpRoute } from '../service-definition';

/** A route's literal segments as a bit string, leftmost first: API Gateway prefers `/api/all/status` to `/api/{account}/status`. */
function specificity(route: HttpRoute): string {
  return route.path
    .split('/')
    .map((part) => (/^\{\w+\}$/.test(part) ? '0' : '1'))
    .join('');
}

/**
 * The route a path and method reach, by API Gateway's rules: exact segments, `{name}` matching one segment, and a
 * literal segment winning over a `{name}` in the same place.
 */
export function matchRoute(
  routes: readonly HttpRoute[],
  method: string,
  path: string,
): { route?: HttpRoute; pathExists: boolean; params: Record<string, string> } {
  const segments = path.split('/');
  let pathExists = false;
  const bySpecificity = [...routes].sort((a, b) => (specificity(a) < specificity(b) ? 1 : specificity(a) > specificity(b) ? -1 : 0));
  for (const route of bySpecificity) {
    const template = route.path.split('/');
    if (template.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = template.every((part, i) => {
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      if (!name) return part === segments[i];
      if (segments[i] === '') return false;
      params[name] = safeDecode(segments[i]);
      return true;
    });
    if (!matches) continue;
    pathExists = true;
    if (route.method === method) return { route, pathExists, params };
  }
  return { pathExists, params: {} };
}

/** A path segment percent-decoded, or as it is when it does not decode. */
export function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
