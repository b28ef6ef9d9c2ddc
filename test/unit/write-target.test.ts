/** What a writing command says of the database it was pointed at (scripts/support/write-target.ts). */
import tables from '../../resources/tables.js';
import { stageOfTable, targetLine, targetProblem } from '../../scripts/support/write-target';

const tablesOf = (stage: string) => Object.keys(tables.TABLES).map((table) => tables.tableName(stage, table));
const AT = 'http://127.0.0.1:8000';

it('reads the stage out of a table name, dashes in the stage included', () => {
  expect(stageOfTable('trading-bot-api-dev-trades')).toBe('dev');
  expect(stageOfTable('trading-bot-api-ci-42-api-keys')).toBe('ci-42');
  expect(stageOfTable('trading-bot-api-local-fleet-summary')).toBe('local');
  expect(stageOfTable('orders')).toBeUndefined();
  expect(stageOfTable('trading-bot-api-trades')).toBeUndefined();
});

it("accepts a database holding the stage's tables, whatever else it holds", () => {
  expect(targetProblem('dev', [...tablesOf('dev'), ...tablesOf('local'), 'orders'], AT)).toBeUndefined();
});

it('refuses another stage, naming it and how to choose', () => {
  expect(targetProblem('dev', tablesOf('local'), AT)).toBe(
    `refusing to write: ${AT} has no trading-bot-api-dev-* tables; it holds the tables of stage local. ` +
      'Is this the database you meant? Give --stage local, or the right DB_PORT or --endpoint.',
  );
});

it("refuses an empty database or another project's, and names the tables a stage lacks", () => {
  expect(targetProblem('local', [], AT)).toMatch(
    /has no trading-bot-api-local-\* tables; it holds no tables at all\. Is npm start running/,
  );
  expect(targetProblem('local', ['orders', 'users'], AT)).toMatch(/it holds 2 tables of something else \(orders, users\)/);
  const lacking = tablesOf('local').filter((name) => !name.endsWith('-alerts'));
  expect(targetProblem('local', lacking, AT)).toMatch(/has stage local's tables, but not trading-bot-api-local-alerts/);
});

it('names the stage and the database it writes to', () => {
  expect(targetLine({ stage: 'local', endpoint: AT })).toBe(`writing to stage local on DynamoDB Local at ${AT}`);
  expect(targetLine({ stage: 'dev', endpoint: undefined }, 'eu-west-1')).toBe('writing to stage dev on DynamoDB in AWS (eu-west-1)');
});
