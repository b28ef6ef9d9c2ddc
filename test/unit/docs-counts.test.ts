/**
 * The counts the README states (tables, functions, routes) come from the definitions that deploy them:
 * serverless.yml (read by scripts/local-stack/service-definition.ts, as the local stack reads it) and
 * resources/tables.js. They went stale once (five tables and 11 routes while six and 13 were deployed); a table,
 * function or route added without the README fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import tables from '../../resources/tables.js';
import { serviceDefinition } from '../../scripts/local-stack/service-definition';

const README = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');

const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];

/** A count as the README writes it: a digit string, or a word up to twelve. */
function count(written: string): number {
  const word = WORDS.indexOf(written.toLowerCase());
  return word >= 0 ? word : /^\d+$/.test(written) ? Number(written) : Number.NaN;
}

/** Every count the README states with `pattern` (its one group is the number); at least one must be there. */
function stated(pattern: RegExp): number[] {
  const counts = [...README.matchAll(new RegExp(pattern, 'g'))].map((match) => count(match[1]));
  expect(counts.length).toBeGreaterThan(0);
  return counts;
}

const { functions, routes } = serviceDefinition();
const apiRoutes = routes.filter((route) => route.path.startsWith('/api/'));
const operations = new Set(apiRoutes.map((route) => route.functionKey));

it('the definitions are what the counts below are read from', () => {
  // Every API route is a GET served by a function of its own: "GET functions" and "operations" are the same number.
  expect(apiRoutes.every((route) => route.method === 'GET')).toBe(true);
  expect(operations.size).toBe(apiRoutes.length);
});

it.each([
  ['DynamoDB tables', /(\w+) DynamoDB tables/, () => Object.keys(tables.TABLES).length],
  ['Lambda functions', /(\w+) Lambda functions/, () => functions.length],
  ['GET functions (the diagram)', /(\w+) GET functions/, () => operations.size],
  ['operations, traced', /tracing: the (\w+) operations/, () => operations.size],
  ['GET routes under /api', /the (\w+) `GET` routes under `\/api`/, () => apiRoutes.length],
  ["dashboard's routes", /the dashboard's (\w+)\s+\(`\/`/, () => routes.length - apiRoutes.length],
])('the README counts the %s as deployed', (_, pattern, actual) => {
  const counts = stated(pattern);
  expect(counts).toEqual(counts.map(actual));
});
