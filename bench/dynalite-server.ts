/**
 * Child process: one in-memory dynalite on a loopback port (scripts/support/local-db's startDynalite).
 * In a process of its own it loads in parallel with the parent that generates and sends the items, its heap can be
 * sized for a million trades, and during measurements it answers like a separate service instead of competing for
 * the event loop of the process that is timing the handler.
 */
import { startDynalite } from '../scripts/support/local-db';
import { serveParent } from './child-rpc';

async function main() {
  const db = await startDynalite();
  serveParent(
    { endpoint: db.endpoint, port: db.port },
    async (request: { type: 'memory' }) => {
      if (request.type !== 'memory') throw new Error(`unknown request ${JSON.stringify(request)}`);
      const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
      return { rssMb: rss / 2 ** 20, heapMb: heapUsed / 2 ** 20, externalMb: (external + arrayBuffers) / 2 ** 20 };
    },
    // In memory: nothing to flush. Keep-alive sockets of clients may hold server.close() open, so wait only briefly.
    () => Promise.race([db.close(), new Promise<void>((resolve) => setTimeout(resolve, 1000))]),
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
