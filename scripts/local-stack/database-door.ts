/**
 * DB_PORT: the door to DynamoDB Local for the project's tools (keys CLI, importer, demo bot, `serverless invoke
 * local`). DynamoDB Local checks neither the Host header nor who is calling; this refuses what only a web page would
 * send (a non-loopback Host, as after DNS rebinding; an Origin or Sec-Fetch header) and passes the rest through.
 */
import { Agent as HttpAgent } from 'node:http';
import { fromWebPage, isAllowedHost, keptHeaders, listen, readBody, send } from './gateway/http-server';
import { requestOverSocket } from './offline';

const databaseAgent = new HttpAgent({ keepAlive: true, maxSockets: 16 });

export async function startDatabaseDoor(options: {
  port: number;
  target: string;
}): Promise<{ port: number; endpoint: string; close(): Promise<void> }> {
  const target = new URL(options.target);
  const server = await listen(options.port, {}, async (req, res) => {
    if (!isAllowedHost(req.headers.host) || fromWebPage(req)) {
      req.resume();
      return send(res, {
        statusCode: 403,
        headers: { 'Content-Type': 'application/x-amz-json-1.0' },
        body: JSON.stringify({
          __type: 'com.amazon.coral.service#AccessDeniedException',
          Message: 'Only local programs may use this database; web pages may not.',
        }),
      });
    }
    const answer = await requestOverSocket(
      { host: target.hostname, port: target.port, agent: databaseAgent },
      { method: req.method!, path: req.url!, headers: { ...req.headers, host: target.host }, body: await readBody(req), timeoutMs: 0 },
    );
    const headers = keptHeaders(answer.headers, /^(connection|transfer-encoding|keep-alive|content-length|date)$/);
    send(res, { statusCode: answer.status, headers, body: answer.body });
  });
  return { port: server.port, endpoint: `http://127.0.0.1:${server.port}`, close: () => server.close() };
}
