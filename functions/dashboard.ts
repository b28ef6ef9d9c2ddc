/**
 * GET / and GET /assets/{file} — the dashboard (dashboard/, built by Vite), from the API's own origin.
 * Public: the page holds no data; it asks the API, with the key the operator gives it. 200, 304 or 404.
 * Files, not JSON: it does not go through the API's middleware composition (api/http/handler.ts), but logs the
 * same access line.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { loadAssets, serveAsset } from '../api/http/static-assets';
import { logAccess, logger } from '../api/telemetry';

const assets = loadAssets();

export const handler = async (event: Partial<APIGatewayProxyEvent>, context: Context): Promise<APIGatewayProxyResult> => {
  const requestId = event.requestContext?.requestId ?? context.awsRequestId;
  const started = performance.now();
  const response = serveAsset(assets, event, requestId);
  logger.addContext(context);
  logAccess(event, requestId, response.statusCode, started);
  return response;
};
