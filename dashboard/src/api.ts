/**
 * The dashboard's one way to the API: the typed client of API 1.1 (client/), on the page's own origin (no CORS),
 * with the key kept for the browser session only (sessionStorage), and If-None-Match on every poll. It reports
 * whether the API answers, so the page can say when it does not and recover by itself.
 */
import { createClient, type TradingBotClient } from '../../client';

const KEY = 'trading-bot-api-key';

export type Connection = 'ok' | 'unreachable' | 'needs-key';

type Listener = (state: Connection, detail: string) => void;
const listeners = new Set<Listener>();
let state: Connection = 'ok';

export function onConnection(listener: Listener): void {
  listeners.add(listener);
}

function report(next: Connection, detail = ''): void {
  if (next === state && next === 'ok') return;
  state = next;
  for (const listener of listeners) listener(next, detail);
}

let client: TradingBotClient = build();

function build(): TradingBotClient {
  const apiKey = sessionStorage.getItem(KEY) ?? undefined;
  return createClient({
    // Where the API is: the page's own origin and path (`/` locally, `/prod/` on a deployed stage).
    baseUrl: new URL('.', window.location.href).href.replace(/\/$/, ''),
    apiKey,
    fetch: async (request: Request) => {
      try {
        const response = await fetch(request);
        if (response.status === 401) report('needs-key', apiKey ? 'The API refused this key.' : 'The API needs a key.');
        else if (response.status === 503 || response.status >= 500) report('unreachable', `The API answered ${response.status}.`);
        else report('ok');
        return response;
      } catch (error) {
        report('unreachable', 'The API does not answer.');
        throw error;
      }
    },
  });
}

export function api(): TradingBotClient {
  return client;
}

export function setKey(key: string | null): void {
  if (key) sessionStorage.setItem(KEY, key);
  else sessionStorage.removeItem(KEY);
  client = build();
  state = 'ok';
}

export function hasKey(): boolean {
  return sessionStorage.getItem(KEY) !== null;
}

/** Thrown for an answer that is not a 200, with the problem's own words. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The query parameters a 400 refused, by name. */
    readonly parameters: readonly string[] = [],
  ) {
    super(message);
  }
}

/** The data of an answer, or an ApiError with the problem's detail and the parameters it refused. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data !== undefined) return result.data;
  const problem = result.error as { detail?: string; code?: string; errors?: { parameter: string }[] } | undefined;
  throw new ApiError(
    result.response.status,
    problem?.detail ?? `HTTP ${result.response.status}`,
    problem?.errors?.map((error) => error.parameter),
  );
}
