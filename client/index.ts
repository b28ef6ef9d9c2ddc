/**
 * A typed client for the Trading Bot API: openapi-fetch over the types `openapi-typescript` generates from
 * openapi.yaml (client/schema.d.ts; `npm run client:generate` after changing the document, and a test fails while
 * they differ). Every path, parameter and body is checked by the compiler.
 *
 * It adds four things to plain openapi-fetch: the API key in `x-api-key`; polling that costs a 304 when nothing
 * changed (it remembers the last ETag and body of each URL and sends If-None-Match, so an unchanged answer comes
 * back as the body it already had); `pages()`, which follows `nextCursor` through a trade listing; and
 * `csvPages()`, which follows a CSV listing's `Link` headers and yields one file's text, one header row (1.4).
 * Answers are typed by their JSON representation; ask for another with `parseAs: 'text'` (CSV, Prometheus text).
 *
 *   const api = createClient({ baseUrl: 'http://localhost:3000', apiKey });
 *   const { data, error } = await api.GET('/api/{account}/pnl', { params: { path: { account: 'primary-usd' }, query: { period: 'week' } } });
 */
import createFetchClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';

export type { components, paths } from './schema';
export type Schemas = components['schemas'];
// The API's shapes under their own names, as the service itself uses them (packages/core/src/types.ts names the
// generated ones). Imported by path, types only: the dashboard's build and type check resolve no package names.
import type { TradePage } from '../packages/core/src/types';

export type {
  AccountEquity,
  AccountPerformance,
  AccountPnl,
  AccountStatus,
  AllPerformance,
  AllPnl,
  Balance,
  FleetStatus,
  Trade,
  TradePage,
} from '../packages/core/src/types';
export type Problem = Schemas['Problem'];

export interface ClientOptions {
  /** Where the API is: `http://localhost:3000` for `npm start`, the stage's URL once deployed (no `/api`). */
  baseUrl: string;
  /** Sent as `x-api-key`; not needed by `npm start` unless it runs with AUTH=on. */
  apiKey?: string;
  /** Remember ETags and bodies to poll with If-None-Match (default true). */
  revalidate?: boolean;
  /** How many URLs' last answers to remember (least recently used first out); default 200. */
  cacheSize?: number;
  /** What sends a request (default: the global fetch). */
  fetch?: (request: Request) => Promise<Response>;
}

/** How many answers came back unchanged (304) and were served from the remembered body. */
export interface PollStats {
  notModified: number;
  transferred: number;
}

/** Bodies typed by their JSON representation (the trade listings also declare CSV: fetched with `parseAs: 'text'`). */
type Json = `${string}/json`;

export interface TradingBotClient extends Client<paths, Json> {
  readonly stats: PollStats;
  /** Every page of a trade listing, following nextCursor (same filters, window and key), until the last. */
  pages<P extends '/api/all/trades' | '/api/{account}/trades'>(path: P, init: TradeListingInit<P>): AsyncGenerator<TradePage>;
  /**
   * A trade listing as one CSV file (`format` `csv`, the default, or `cointracking`), page by page in order: the
   * first chunk has the header row, the others only records, so the chunks concatenated are one file. Follows the
   * `Link` of each page (same filters, window and key) until the last; `onPage` sees each page's headers (such as
   * `X-Trades-Left-Out`, 1.5) before its text is yielded.
   */
  csvPages<P extends '/api/all/trades' | '/api/{account}/trades'>(
    path: P,
    init: TradeListingInit<P>,
    onPage?: (headers: Headers) => void,
  ): AsyncGenerator<string>;
}

/** The cursor of a `Link: <?…cursor=…>; rel="next"` header (relative to the request, whose other parameters it repeats). */
export function nextCursorOf(link: string | null): string | undefined {
  const target = link ? /<([^>]*)>\s*;\s*rel="?next"?/.exec(link)?.[1] : undefined;
  return target === undefined ? undefined : (new URLSearchParams(target.replace(/^[^?]*\?/, '')).get('cursor') ?? undefined);
}

type TradeListingInit<P extends '/api/all/trades' | '/api/{account}/trades'> = P extends '/api/{account}/trades'
  ? { params: { path: { account: string }; query?: paths[P]['get']['parameters']['query'] } }
  : { params?: { query?: paths[P]['get']['parameters']['query'] } };

/** Sends If-None-Match with the last ETag of a URL, and turns its 304 back into that 200 body. */
function revalidation(cacheSize: number, stats: PollStats): Middleware {
  const remembered = new Map<string, { etag: string; body: string; headers: [string, string][] }>();
  return {
    onRequest({ request }) {
      const known = remembered.get(request.url);
      if (known && !request.headers.has('If-None-Match')) request.headers.set('If-None-Match', known.etag);
      return request;
    },
    async onResponse({ request, response }) {
      const known = remembered.get(request.url);
      if (response.status === 304 && known) {
        stats.notModified += 1;
        // Most recently used last.
        remembered.delete(request.url);
        remembered.set(request.url, known);
        return new Response(known.body, { status: 200, headers: [...known.headers, ['x-served-from', 'not-modified']] });
      }
      stats.transferred += 1;
      const etag = response.headers.get('ETag');
      if (response.status === 200 && etag) {
        const body = await response.clone().text();
        remembered.delete(request.url);
        remembered.set(request.url, { etag, body, headers: [...response.headers.entries()] });
        if (remembered.size > cacheSize) remembered.delete(remembered.keys().next().value!);
      }
      return response;
    },
  };
}

export function createClient(options: ClientOptions): TradingBotClient {
  const client = createFetchClient<paths, Json>({ baseUrl: options.baseUrl, fetch: options.fetch });
  const stats: PollStats = { notModified: 0, transferred: 0 };
  if (options.apiKey !== undefined) {
    const apiKey = options.apiKey;
    client.use({
      onRequest({ request }) {
        request.headers.set('x-api-key', apiKey);
        return request;
      },
    });
  }
  if (options.revalidate !== false) client.use(revalidation(options.cacheSize ?? 200, stats));

  async function* pages<P extends '/api/all/trades' | '/api/{account}/trades'>(
    path: P,
    init: TradeListingInit<P>,
  ): AsyncGenerator<TradePage> {
    let cursor: string | undefined;
    do {
      const params = init.params as { path?: { account: string }; query?: Record<string, string | undefined> } | undefined;
      const { data, error, response } = await (
        client.GET as (path: string, init: unknown) => Promise<{ data?: TradePage; error?: Problem; response: Response }>
      )(path, {
        params: { ...params, query: { ...params?.query, ...(cursor ? { cursor } : {}) } },
      });
      if (!data) throw new Error(`${path}: ${response.status} ${error?.code ?? ''} ${error?.detail ?? ''}`.trim());
      yield data;
      cursor = data.nextCursor ?? undefined;
    } while (cursor);
  }

  async function* csvPages<P extends '/api/all/trades' | '/api/{account}/trades'>(
    path: P,
    init: TradeListingInit<P>,
    onPage?: (headers: Headers) => void,
  ): AsyncGenerator<string> {
    let cursor: string | undefined;
    let first = true;
    do {
      const params = init.params as { path?: { account: string }; query?: Record<string, string | undefined> } | undefined;
      const { data, error, response } = await (
        client.GET as (path: string, init: unknown) => Promise<{ data?: string; error?: Problem; response: Response }>
      )(path, {
        params: { ...params, query: { format: 'csv', ...params?.query, ...(cursor ? { cursor } : {}) } },
        parseAs: 'text',
      });
      if (data === undefined || response.status !== 200) {
        const problem = typeof error === 'string' ? (JSON.parse(error) as Problem) : error;
        throw new Error(`${path}: ${response.status} ${problem?.code ?? ''} ${problem?.detail ?? ''}`.trim());
      }
      onPage?.(response.headers);
      // Every page starts with the header row (RFC 4180 records end with CRLF; a header has no line break in it).
      yield first ? data : data.slice(data.indexOf('\r\n') + 2);
      first = false;
      cursor = nextCursorOf(response.headers.get('Link'));
    } while (cursor);
  }

  return Object.assign(client, { stats, pages, csvPages });
}
