/**
 * Where a command of the project writes, said before it writes, and checked: every command that writes (bridge,
 * ingest, import, accounts, keys, backfill, demo-bot, restore) goes through `checkTarget`, which prints the stage and
 * database on stderr (stdout stays the command's own, e.g. the key `keys create --quiet` prints) and refuses a
 * database that does not hold this project's tables of that stage, naming what it found there. A DynamoDB that
 * answers on the port is not enough: with DB_PORT forgotten, a bridge once wrote a whole account into another stack.
 */
import { basename } from 'node:path';
import { DescribeTableCommand, DynamoDBClient, paginateListTables } from '@aws-sdk/client-dynamodb';
import tables from '../../resources/tables.js';
import { adminClient, localDatabaseEndpoint } from '../local-stack/local-db';

/** A stage and the DynamoDB that holds it: `endpoint` set for DynamoDB Local (or another endpoint), unset for AWS. */
export interface Target {
  stage: string;
  endpoint: string | undefined;
}

/**
 * Where a command writes: `npm start`'s database (DB_PORT, stage `local`) unless `stage` names another stage, which is
 * in AWS (credentials and region from the environment); `endpoint` names another DynamoDB (Local) outright.
 */
export function resolveTarget(options: { stage?: string; endpoint?: string }): Target {
  const stage = options.stage ?? 'local';
  return { stage, endpoint: options.endpoint ?? (stage === 'local' ? localDatabaseEndpoint() : undefined) };
}

/** The stage a physical table name belongs to, or undefined when it is not one of this project's tables. */
export function stageOfTable(name: string): string | undefined {
  const prefix = 'trading-bot-api-';
  if (!name.startsWith(prefix)) return undefined;
  // The stage may hold dashes itself (`ci-42`): the suffix is the longest table name that ends the name.
  const suffixes = Object.keys(tables.TABLES).map((table) => tables.tableName('', table).slice(prefix.length));
  const suffix = suffixes
    .filter((table) => name.endsWith(table) && name.length > prefix.length + table.length)
    .sort((a, b) => b.length - a.length)[0];
  return suffix ? name.slice(prefix.length, -suffix.length) : undefined;
}

/**
 * Why `stage`'s tables are not all among `names` (the tables a database holds), in words naming what is there
 * instead; undefined when they all are. Pure, so the wording is unit-tested.
 */
export function targetProblem(stage: string, names: readonly string[], where: string, verb = 'write'): string | undefined {
  const wanted = Object.keys(tables.TABLES).map((table) => tables.tableName(stage, table));
  const present = new Set(names);
  const missing = wanted.filter((name) => !present.has(name));
  if (!missing.length) return undefined;
  const stages = [...new Set(names.map(stageOfTable).filter((found): found is string => found !== undefined && found !== stage))].sort();
  const others = names.filter((name) => stageOfTable(name) === undefined);
  const found = [
    stages.length
      ? `the tables of stage${stages.length > 1 ? 's' : ''} ${stages.slice(0, 5).join(', ')}${stages.length > 5 ? ', ...' : ''}`
      : '',
    others.length
      ? `${others.length} table${others.length > 1 ? 's' : ''} of something else (${others.slice(0, 3).join(', ')}${others.length > 3 ? ', ...' : ''})`
      : '',
  ].filter(Boolean);
  const holds = found.length ? `it holds ${found.join(' and ')}` : 'it holds no tables at all';
  const what =
    missing.length === wanted.length
      ? `no trading-bot-api-${stage}-* tables`
      : `stage ${stage}'s tables, but not ${missing.join(', ')} (made by an older version? npm start creates them)`;
  const hint = stages.length
    ? ` Is this the database you meant? Give --stage ${stages[0]}, or the right DB_PORT or --endpoint.`
    : ' Is npm start running there, with the DB_PORT you meant (or the right --endpoint)?';
  return `refusing to ${verb}: ${where} has ${what}; ${holds}.${hint}`;
}

/** The line a command prints before it writes. */
export function targetLine(target: Target, region?: string, verb = 'writing to'): string {
  const { stage, endpoint } = target;
  if (!endpoint) return `${verb} stage ${stage} on DynamoDB in AWS${region ? ` (${region})` : ''}`;
  const local = /^https?:\/\/(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?\/?$/.test(endpoint);
  return `${verb} stage ${stage} on ${local ? 'DynamoDB Local' : 'the DynamoDB'} at ${endpoint}`;
}

class TargetRefused extends Error {}

/** Targets this process has checked and named already (a command with a writer and a store says it once). */
const checked = new Set<string>();

/**
 * Checks the target `options` name (resolveTarget) and prints where the command writes (or, `reading`, reads), under
 * the running command's name (`bridge` for scripts/bridge.ts and its test build bridge.cjs); on a database without
 * this stage's tables, prints why and exits 1. In AWS the tables are described one by one (a bot's credentials need
 * not list every table of the account); credentials that may not describe them leave the check to the first write,
 * and the line says so.
 */
export async function checkTarget(options: { stage?: string; endpoint?: string }, reading = false): Promise<Target> {
  const target = resolveTarget(options);
  const command = basename(process.argv[1] ?? 'command').replace(/\.(c?js|ts)$/, '');
  const key = `${target.stage} ${target.endpoint}`;
  if (checked.has(key)) return target;
  const client = target.endpoint ? adminClient(target.endpoint) : new DynamoDBClient({ maxAttempts: 2 });
  try {
    const region = target.endpoint ? undefined : await client.config.region();
    const where = target.endpoint ?? `DynamoDB in AWS (${region})`;
    const names: string[] = [];
    let unchecked = false;
    try {
      if (target.endpoint) for await (const page of paginateListTables({ client }, {})) names.push(...(page.TableNames ?? []));
      else
        for (const table of Object.keys(tables.TABLES)) {
          const name = tables.tableName(target.stage, table);
          try {
            await client.send(new DescribeTableCommand({ TableName: name }));
            names.push(name);
          } catch (error) {
            if ((error as Error).name !== 'ResourceNotFoundException') throw error;
          }
        }
    } catch (error) {
      const { code, cause } = error as { code?: string; cause?: { code?: string } };
      if ((error as Error).name !== 'AccessDeniedException')
        throw new TargetRefused(`cannot reach ${where}: ${code ?? cause?.code ?? (error as Error).message ?? String(error)}`);
      // The names read before the refusal are not all: nothing is checked.
      unchecked = true;
    }
    const problem = unchecked ? undefined : targetProblem(target.stage, names, where, reading ? 'read' : 'write');
    if (problem) throw new TargetRefused(problem);
    checked.add(key);
    console.error(
      `${command}: ${targetLine(target, region, reading ? 'reading' : 'writing to')}${unchecked ? ' (tables not checked: these credentials may not describe them)' : ''}`,
    );
  } catch (error) {
    if (!(error instanceof TargetRefused)) throw error;
    console.error(`${command}: ${error.message}`);
    process.exit(1);
  } finally {
    client.destroy();
  }
  return target;
}
