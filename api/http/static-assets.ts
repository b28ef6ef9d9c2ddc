import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import contract from '../../resources/http-contract.js';
import { entityTag, noneMatch } from './etag';

/**
 * The dashboard's files (Vite's build in dashboard/dist), served by the `dashboard` function at `/` and
 * `/assets/{file}` from the API's own origin, so the page needs no CORS. They are read once per instance into
 * memory: a few files, some tens of KB. In AWS they sit in the function's package (serverless.yml `package.patterns`);
 * locally (serverless offline) in the project folder.
 */
export interface Asset {
  body: string;
  contentType: string;
  cacheControl: string;
  etag: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Scripts, styles and fetches from this origin only; no inline script or style, no plugin, no framing, and forms
 * post nowhere. The page loads nothing from elsewhere.
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function candidates(): string[] {
  return [process.env.LAMBDA_TASK_ROOT, process.cwd()]
    .filter((root): root is string => !!root)
    .map((root) => join(root, 'dashboard', 'dist'));
}

/** The built files by URL path (`/` is index.html); empty when there is no build. */
export function loadAssets(dir = candidates().find((path) => existsSync(join(path, 'index.html')))): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!dir) return assets;
  for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const type = TYPES[extname(file)];
    if (!type) continue;
    const path = `/${file.split('\\').join('/')}`;
    const body = readFileSync(join(dir, file), 'utf8');
    // Vite names every asset by a hash of its content: cache for a year. The page itself: always revalidate.
    const immutable = path.startsWith('/assets/');
    assets.set(path === '/index.html' ? '/' : path, {
      body,
      contentType: type,
      cacheControl: immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      etag: entityTag(body),
    });
  }
  return assets;
}

/** A page is never shown inside another site's frame, and its links never tell where they were followed from. */
const SECURITY_HEADERS = { ...contract.SECURITY_HEADERS, 'Referrer-Policy': 'no-referrer', 'X-Frame-Options': 'DENY' };

function notFound(path: string, requestId: string): APIGatewayProxyResult {
  const answer = contract.problemAnswer({ code: 'NOT_FOUND', detail: 'No such file of the dashboard.', instance: path, requestId });
  return { ...answer, headers: { ...answer.headers, 'X-Request-Id': requestId, ...SECURITY_HEADERS } };
}

/** Answers a GET for one of `assets`: 200 with the file, 304 when If-None-Match names it, 404 problem+json otherwise. */
export function serveAsset(assets: Map<string, Asset>, event: Partial<APIGatewayProxyEvent>, requestId: string): APIGatewayProxyResult {
  const path = event.resource === '/' ? '/' : `/assets/${event.pathParameters?.file ?? ''}`;
  const asset = assets.get(path);
  if (!asset) return notFound(event.path ?? path, requestId);
  const headers: Record<string, string> = {
    'Content-Type': asset.contentType,
    'Cache-Control': asset.cacheControl,
    ETag: asset.etag,
    'X-Request-Id': requestId,
    ...SECURITY_HEADERS,
    ...(path === '/' ? { 'Content-Security-Policy': CONTENT_SECURITY_POLICY } : {}),
  };
  const ifNoneMatch = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'if-none-match')?.[1];
  if (noneMatch(ifNoneMatch, asset.etag)) return { statusCode: 304, headers, body: '' };
  return { statusCode: 200, headers, body: asset.body };
}
