/**
 * Makes ahead what the local stack fetches or builds on first use, so `npm test` does it while its static checks run
 * (test/kit/checks.ts) rather than in its tests' global setup, where the tests waited for it: DynamoDB Local, fetched
 * once from the npm registry into .cache/ (57 MB), and the dashboard's build when its sources changed. `npm start` and
 * the tests' global setup still make them themselves when missing.
 *
 * `tsx scripts/local-stack/prepare.ts dynamodb-local|dashboard`: one of them, so the two run side by side.
 */
import { ensureDashboardBuilt } from '../../resources/dashboard-build.js';
import { ensureDynamoDbLocal } from './dynamodb-local';

const log = (line: string) => console.log(line);
const what = process.argv[2];
if (what === 'dynamodb-local') ensureDynamoDbLocal(log);
else if (what === 'dashboard') ensureDashboardBuilt({ log });
else {
  console.error('usage: tsx scripts/local-stack/prepare.ts dynamodb-local|dashboard');
  process.exit(2);
}
