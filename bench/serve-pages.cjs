// Peak-RSS probe, run with plain `node` (no tsx, whose loader would add its own memory): requires a deploy bundle
// of a trade listing and serves `pages` pages of `limit` trades through it, following nextCursor (and starting over
// at the end of the listing), as a warm Lambda would; then prints its peak RSS (resourceUsage().maxRSS, in KiB).
// Usage: node bench/serve-pages.cjs <bundle.js> <event.json> <pages> <limit>
'use strict';
const { readFileSync } = require('node:fs');

async function main() {
  const [bundle, eventFile, pagesText, limitText] = process.argv.slice(2);
  const { handler } = require(bundle);
  const template = JSON.parse(readFileSync(eventFile, 'utf8'));
  const pages = Number(pagesText);
  const limit = String(Number(limitText));
  const context = { awsRequestId: 'bench-rss', functionName: 'bench', getRemainingTimeInMillis: () => 10000 };
  let cursor = null;
  let trades = 0;
  let restarts = 0;
  for (let page = 0; page < pages; page++) {
    const query = cursor ? { limit, cursor } : { limit };
    const event = {
      ...template,
      queryStringParameters: query,
      multiValueQueryStringParameters: Object.fromEntries(Object.entries(query).map(([name, value]) => [name, [value]])),
    };
    const result = await handler(event, context);
    if (result.statusCode !== 200) throw new Error(`page ${page + 1} answered ${result.statusCode}: ${result.body}`);
    const body = JSON.parse(result.body);
    trades += body.count;
    cursor = body.nextCursor;
    if (!cursor) restarts++;
  }
  const { maxRSS } = process.resourceUsage();
  process.stdout.write(JSON.stringify({ pages, trades, restarts, maxRssKb: maxRSS, heapUsedMb: process.memoryUsage().heapUsed / 2 ** 20 }));
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
