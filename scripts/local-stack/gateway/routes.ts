import type { HttpRoute } from '../service-definition';

/** A route's literal segments as a bit string, leftmost first: API Gateway prefers `/api/all/status` to `/api/{account}/status`. */
function specificity(route: HttpRoute): string {
  return route.path
    .split('/')
    .map((part) => (/^\{\w+\}$/.test(part) ? '0' : '1'))
    .join('');
}

/**
 * The route a path (as the request wrote it, undecoded) and method reach, by the rules openapi.yaml states (its
 * "Paths" convention): segments compared after percent-decoding (`%61ll` is `all`; an encoded `/` stays inside its
 * segment), `{name}` matching one non-empty segment, a literal segment winning over a `{name}` in the same place, one
 * trailing slash ignored (as API Gateway's REST routing does). A path with a dot segment (`.` or `..`, encoded or not)
 * names no route: clients resolve them before sending, and none is resolved here (nor is one an account id).
 */
export function matchRoute(
  routes: readonly HttpRoute[],
  method: string,
  path: string,
): { route?: HttpRoute; pathExists: boolean; params: Record<string, string> } {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const segments = trimmed.split('/').map((segment) => percentDecoded(segment) ?? segment);
  if (segments.some((segment) => segment === '.' || segment === '..')) return { pathExists: false, params: {} };
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
      params[name] = segments[i];
      return true;
    });
    if (!matches) continue;
    pathExists = true;
    if (route.method === method) return { route, pathExists, params };
  }
  return { pathExists, params: {} };
}

/** `text` percent-decoded, or undefined when a `%` of it does not start a percent-encoding that decodes (as UTF-8). */
export function percentDecoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** The path of `route` with its parameters filled in (percent-encoded): the canonical path of a request it matched. */
export function routePath(route: HttpRoute, params: Record<string, string>): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}
