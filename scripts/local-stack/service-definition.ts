/**
 * What serverless.yml declares, read from the file itself so local tools cannot drift from it: the functions, the
 * route and authorizer of each HTTP event, and the preflight (CORS) settings of the routes.
 */
import { join } from 'node:path';
import { parsedYaml } from '../support/parsed-yaml';

const ROOT = join(__dirname, '..', '..');

export interface HttpRoute {
  functionKey: string;
  method: string;
  /** The route template with a leading slash, e.g. `/api/{account}/trades`. */
  path: string;
  /** The function key of the route's authorizer, if it has one. */
  authorizer?: string;
  /**
   * The headers (lower case) of the authorizer's identity source, which API Gateway requires before it asks the
   * authorizer: `x-api-key` on the data routes; none on a route whose authorizer has no identity source (metrics).
   */
  identityHeaders: string[];
}

interface RawEvent {
  http?: {
    method: string;
    path: string;
    authorizer?: { name: string; identitySource?: string; resultTtlInSeconds?: number } | string;
    cors?: { headers?: string[]; maxAge?: number };
  };
}

let cached: ReturnType<typeof readServiceDefinition> | undefined;

/** serverless.yml as its YAML says it (anchors resolved; `${...}` variables left as they are written). */
export function serverlessYml(): Record<string, unknown> {
  // yaml is loaded only to parse a changed file: the test files that read the parsed value (most of them) skip its load.
  return parsedYaml(join(ROOT, 'serverless.yml'), (text) =>
    (require('yaml') as typeof import('yaml')).parseDocument(text, { logLevel: 'silent' }).toJS({ maxAliasCount: -1 }),
  ) as Record<string, unknown>;
}

/** What serverless.yml declares of the service, its functions and their routes (read once). */
export const serviceDefinition = () => (cached ??= readServiceDefinition());

function readServiceDefinition() {
  const raw = serverlessYml() as {
    service: string;
    provider: { apiGateway?: { minimumCompressionSize?: number } };
    functions: Record<string, { events?: RawEvent[] }>;
  };
  const routes: HttpRoute[] = [];
  // The `cors` block every route shares (origins come from the stage).
  let cors: { headers: string[]; maxAge?: number } | undefined;
  for (const [functionKey, definition] of Object.entries(raw.functions)) {
    for (const event of definition.events ?? []) {
      if (!event.http) continue;
      const { authorizer } = event.http;
      routes.push({
        functionKey,
        method: event.http.method.toUpperCase(),
        path: `/${event.http.path.replace(/^\//, '')}`,
        authorizer: typeof authorizer === 'string' ? authorizer : authorizer?.name,
        identityHeaders: identityHeadersOf(authorizer),
      });
      if (event.http.cors && !cors) cors = { headers: event.http.cors.headers ?? [], maxAge: event.http.cors.maxAge };
    }
  }
  return {
    service: raw.service,
    functions: Object.keys(raw.functions),
    routes,
    cors: cors ?? { headers: [] },
    // Answers of this many bytes or more are gzipped.
    minimumCompressionSize: raw.provider.apiGateway?.minimumCompressionSize,
  };
}

/**
 * The identity source's headers, as serverless compiles an authorizer: its `identitySource` (comma-separated
 * `method.request.header.<name>`); none for a REQUEST authorizer without one and no cache; otherwise serverless's
 * default, `Authorization`.
 */
function identityHeadersOf(authorizer: NonNullable<RawEvent['http']>['authorizer']): string[] {
  if (authorizer === undefined) return [];
  if (typeof authorizer === 'string') return ['authorization'];
  if (authorizer.identitySource === undefined) return Number(authorizer.resultTtlInSeconds) === 0 ? [] : ['authorization'];
  return authorizer.identitySource.split(',').map((source) =>
    source
      .trim()
      .replace(/^method\.request\.header\./, '')
      .toLowerCase(),
  );
}

/** The deployed (and serverless offline) name of a function: `<service>-<stage>-<key>`. */
export function functionName(stage: string, functionKey: string): string {
  return `${serviceDefinition().service}-${stage}-${functionKey}`;
}
