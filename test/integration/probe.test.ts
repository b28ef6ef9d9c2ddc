/**
 * The scheduled probe against DynamoDB Local, with a healthy, a stale and an erroring bot (and a paused and a
 * stopped one): the Embedded Metric Format it prints parses to the expected metrics (the `_aws` block: namespace,
 * dimensions, names, units) and values, and its one log line names the stale and erroring accounts. With the
 * database gone, it says so. `npm start`'s watch prints only what changes between two probes.
 */
import type { Context } from 'aws-lambda';
import type { ProbeResult } from '../../api/operations/probe';
import { probeChanges } from '../../scripts/local-stack/probe-watch';
import { printedWhile } from '../kit/printed';
import { eventFile, type Harness, startHarness } from '../kit/api-harness';
import { FaultProxy } from '../kit/fault-proxy';

let harness: Harness;
let proxy: FaultProxy;
const NOW = Date.now();
const ago = (seconds: number) => new Date(NOW - seconds * 1000).toISOString();

beforeAll(async () => {
  harness = await startHarness({ LOG_LEVEL: 'INFO', STALE_AFTER_SECONDS: '300' });
  // The probe reads through a proxy that can take the database away.
  proxy = await new FaultProxy(harness.db.endpoint).start();
  process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
  Object.assign(process.env, { DYNAMODB_CONNECT_TIMEOUT_MS: '200', DYNAMODB_REQUEST_TIMEOUT_MS: '400', DYNAMODB_MAX_ATTEMPTS: '1' });
  const bots = [
    ['p-healthy', 'running', 20],
    ['p-slow', 'running', 250],
    ['p-stale', 'running', 720],
    ['p-error', 'error', 30],
    ['p-paused', 'paused', 3600],
    ['p-stopped', 'stopped', 86400],
  ] as const;
  for (const [id, state, age] of bots) {
    await harness.writer.upsertAccount({ id, name: id, currency: 'USD', broker: 'B', environment: 'paper', createdAt: ago(90_000) });
    await harness.writer.heartbeat(id, { state, time: ago(age), message: state === 'error' ? 'Broker API rejected orders' : null });
  }
});
afterAll(async () => {
  await proxy.close();
  await harness.close();
});

/** Runs the probe function as EventBridge invokes it, and the lines it printed. */
async function probe(): Promise<{ result: ProbeResult; lines: Record<string, any>[] }> {
  const { handler } = await import('../../functions/probe');
  const { result, lines } = await printedWhile(() =>
    handler(eventFile('probe') as never, { functionName: 'trading-bot-api-test-probe', awsRequestId: 'probe-1' } as Context),
  );
  return { result, lines };
}

it('publishes its findings as EMF metrics with the stage as dimension, and one line naming who needs attention', async () => {
  const { result, lines } = await probe();
  expect(lines).toHaveLength(2);
  const emf = lines.find((line) => line._aws)!;
  expect(emf._aws.CloudWatchMetrics).toEqual([
    {
      Namespace: 'TradingBotApi',
      Dimensions: [['service', 'stage']],
      Metrics: expect.arrayContaining([
        { Name: 'ProbeRuns', Unit: 'Count' },
        { Name: 'ProbeLatencyMs', Unit: 'Milliseconds' },
        { Name: 'DatabaseHealthy', Unit: 'Count' },
        { Name: 'BotsRunning', Unit: 'Count' },
        { Name: 'BotsPaused', Unit: 'Count' },
        { Name: 'BotsStopped', Unit: 'Count' },
        { Name: 'BotsInError', Unit: 'Count' },
        { Name: 'StaleBots', Unit: 'Count' },
        { Name: 'OldestHeartbeatAgeSeconds', Unit: 'Seconds' },
      ]),
    },
  ]);
  expect(emf._aws.Timestamp).toBeGreaterThan(NOW - 60_000);
  expect(emf).toMatchObject({
    service: 'trading-bot-api',
    stage: harness.stage,
    ProbeRuns: 1,
    DatabaseHealthy: 1,
    // Three running, one of them stale: counted as stale, not as running.
    BotsRunning: 2,
    BotsPaused: 1,
    BotsStopped: 1,
    BotsInError: 1,
    StaleBots: 1,
  });
  expect(emf.OldestHeartbeatAgeSeconds).toBeGreaterThanOrEqual(720);
  expect(emf.OldestHeartbeatAgeSeconds).toBeLessThan(760);
  expect(emf.ProbeLatencyMs).toBeGreaterThanOrEqual(0);

  const log = lines.find((line) => line.message)!;
  expect(log).toMatchObject({
    level: 'WARN',
    message: 'probe: bots need attention',
    stage: harness.stage,
    function_name: 'trading-bot-api-test-probe',
    staleAccounts: ['p-stale'],
    errorAccounts: ['p-error'],
    databaseHealthy: true,
  });
  expect(result).toMatchObject({ databaseHealthy: true, bots: { total: 6, running: 2, paused: 1, stopped: 1, error: 1 } });
  expect(result.stale).toEqual([{ accountId: 'p-stale', heartbeatAgeSeconds: expect.any(Number) }]);
  expect(result.inError).toEqual([{ accountId: 'p-error', message: 'Broker API rejected orders' }]);
});

it('names a misconfiguration (a permission the role lacks) as the cause, naming the table and the action', async () => {
  await proxy.inject({ kind: 'refusal', error: 'AccessDeniedException' });
  try {
    const { result, lines } = await probe();
    expect(result).toMatchObject({
      databaseHealthy: false,
      bots: null,
      databaseCause: expect.stringMatching(/^misconfigured: .*dynamodb:\w+/),
    });
    expect(lines.find((line) => line.message)).toMatchObject({ level: 'ERROR', cause: result.databaseCause });
  } finally {
    await proxy.clear();
  }
});

it('reports a database that does not answer, and nothing about bots it could not read', async () => {
  await proxy.inject({ kind: 'refuse' });
  try {
    const { result, lines } = await probe();
    const emf = lines.find((line) => line._aws)!;
    expect(emf).toMatchObject({ ProbeRuns: 1, DatabaseHealthy: 0 });
    expect(emf).not.toHaveProperty('StaleBots');
    expect(lines.find((line) => line.message)).toMatchObject({
      level: 'ERROR',
      message: 'probe: the database did not answer',
      cause: expect.stringMatching(/^the database did not answer \(.+\)$/),
    });
    expect(result).toMatchObject({ databaseHealthy: false, bots: null });
  } finally {
    await proxy.clear();
  }
});

describe('npm start prints what changed between two probes, not every run', () => {
  const base: ProbeResult = {
    time: '2026-11-22T10:00:00.000Z',
    databaseHealthy: true,
    latencyMs: 4,
    bots: { total: 3, running: 2, paused: 0, stopped: 0, error: 1 },
    stale: [],
    inError: [{ accountId: 'b', message: 'margin' }],
    oldestHeartbeatAgeSeconds: 3,
  };
  it('summarises the first probe, then only changes', () => {
    expect(probeChanges(undefined, base)).toEqual(['3 bots: 2 running, 0 paused, 0 stopped, 1 in error; needing attention: b']);
    expect(probeChanges(base, { ...base, time: '2026-11-22T10:01:00.000Z' })).toEqual([]);
  });
  it('names a bot turning stale, erroring and recovering, and the database going and coming back', () => {
    const stale = { ...base, stale: [{ accountId: 'a', heartbeatAgeSeconds: 75 }], inError: [] };
    expect(probeChanges(base, stale)).toEqual(['a is stale: running, no heartbeat for 75 s', 'b recovered: no longer in error']);
    expect(probeChanges(stale, { ...stale, stale: [] })).toEqual(['a recovered: heartbeating again']);
    expect(probeChanges(base, { ...base, inError: [...base.inError, { accountId: 'c', message: null }] })).toEqual(['c reports an error']);
    const down = { ...base, databaseHealthy: false, bots: null, stale: [], inError: [] };
    expect(probeChanges(base, down)).toEqual(['the database does not answer (after 4 ms)']);
    expect(probeChanges(down, down)).toEqual([]);
    expect(probeChanges(down, base)[0]).toBe('the database answers again');
  });
});
