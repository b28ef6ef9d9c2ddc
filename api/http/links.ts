import type { RenderRequest } from './representation';

/** Links between the pages of a listing (RFC 8288). Pure: the trades' representations and their unit test use it. */

/**
 * `Link: <?…&cursor=…>; rel="next"` when there is a next page: the request's own query with the next cursor, as a
 * reference relative to the request's URL (RFC 3986 §5.2), so it holds behind any stage path or custom domain.
 */
export function nextLink(nextCursor: string | null, request: RenderRequest): Record<string, string> {
  if (nextCursor === null) return {};
  const query = new URLSearchParams();
  for (const [name, values = []] of Object.entries(request.query)) {
    if (name !== 'cursor') for (const value of values) query.append(name, value);
  }
  query.append('cursor', nextCursor);
  return { Link: `<?${query}>; rel="next"` };
}
