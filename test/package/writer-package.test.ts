/**
 * The writer as the package a bot's own repository installs: `npm pack -w packages/writer` produces it (from the run's
 * one build, test/kit/writer-build.ts, instead of building again in its prepack script); unpacked as
 * npm would install it, it loads as an ES module and as CommonJS, its types compile for both, it writes to
 * DynamoDB Local what the API then reads, and nothing of the HTTP layer is inside it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { QUIET_SDK_ENV } from '../../scripts/support/quiet-sdk';
import { eventFor, type Harness, invoke, startHarness } from '../kit/api-harness';
import { writerBuilt } from '../kit/writer-build';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..', '..');
// Inside the repository, so the unpacked package finds its dependencies (the AWS SDK) in the repository's
// node_modules as it would find them in a bot's.
const WORK = join(ROOT, '.cache', 'writer-package-test');
const INSTALLED = join(WORK, 'node_modules', '@trading-bot-api', 'writer');
let harness: Harness;
let packed: { files: { path: string }[]; filename: string };

beforeAll(async () => {
  harness = await startHarness();
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(INSTALLED, { recursive: true });
  await writerBuilt();
  const json = execFileSync(
    'npm',
    ['pack', '-w', 'packages/writer', '--ignore-scripts', '--pack-destination', WORK, '--json', '--silent'],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  [packed] = JSON.parse(json.slice(json.indexOf('[')));
  execFileSync('tar', ['-xzf', join(WORK, packed.filename), '-C', INSTALLED, '--strip-components=1']);
});
afterAll(async () => {
  rmSync(WORK, { recursive: true, force: true });
  await harness?.close();
});

it('packs the two builds, one declaration file for each, the manifest and the README, and nothing else', () => {
  expect(packed.files.map((file) => file.path).sort()).toEqual([
    'README.md',
    'dist/index.cjs',
    'dist/index.d.cts',
    'dist/index.d.mts',
    'dist/index.mjs',
    'package.json',
  ]);
  const manifest = JSON.parse(readFileSync(join(INSTALLED, 'package.json'), 'utf8'));
  expect(manifest.exports['.']).toEqual({
    import: { types: './dist/index.d.mts', default: './dist/index.mjs' },
    require: { types: './dist/index.d.cts', default: './dist/index.cjs' },
  });
  expect(Object.keys(manifest.dependencies).sort()).toEqual([
    '@aws-sdk/client-dynamodb',
    '@aws-sdk/lib-dynamodb',
    '@smithy/node-http-handler',
  ]);
});

it('bundles the writer and the core package (the table modules and the domain rules), and nothing of the API or the feeds', () => {
  const inputs: string[] = JSON.parse(readFileSync(join(ROOT, 'packages', 'writer', 'dist', 'inputs.json'), 'utf8'));
  const outside = inputs.filter((input) => !/^(packages\/writer\/src\/|packages\/core\/src\/|resources\/tables\.js$)/.test(input));
  // Besides, the core's ES-only helpers (concurrency, backoff), bundled so that a bot on any Node 20 can require() it.
  expect(outside).toEqual(['node_modules/is-network-error/index.js', 'node_modules/p-map/index.js', 'node_modules/p-retry/index.js']);
  expect(inputs.filter((input) => input.startsWith('packages/core/src/store/')).length).toBeGreaterThan(0);
  for (const text of [
    readFileSync(join(INSTALLED, 'dist', 'index.mjs'), 'utf8'),
    readFileSync(join(INSTALLED, 'dist', 'index.cjs'), 'utf8'),
  ]) {
    expect(text).not.toMatch(/problem\+json|@middy|HttpProblem|x-api-key/);
  }
});

it('loads as CommonJS and as an ES module, and writes what the API reads', async () => {
  const script = (kind: 'cjs' | 'mjs', account: string) => `
    ${kind === 'cjs' ? "const { createWriter, WriterError } = require('@trading-bot-api/writer');" : "import { createWriter, WriterError } from '@trading-bot-api/writer';"}
    const main = async () => {
      const writer = createWriter({ stage: ${JSON.stringify(harness.stage)}, endpoint: ${JSON.stringify(harness.db.endpoint)} });
      const created = await writer.upsertAccount({ id: '${account}', name: 'Packaged', currency: 'USDT', broker: 'binance', environment: 'paper' });
      const opened = await writer.openTrade('${account}', { id: 't-1', instrument: 'BTC/USDT', side: 'buy', units: '0.001', openPrice: '91000.5', openTime: '2026-11-22T09:00:00.000Z', market: 'spot', fees: [{ amount: '0.000001', currency: 'BTC' }], orderIds: ['o-1'] });
      const refused = await writer.openTrade('${account}', { id: 't-2', instrument: 'BTC/USDT', side: 'buy', units: 1, openPrice: '1', openTime: '2026-11-22T09:00:00.000Z' }).catch((error) => error);
      writer.close();
      console.log(JSON.stringify({ created, opened, refused: refused instanceof WriterError && [refused.code, refused.field] }));
    };
    main();`;
  for (const kind of ['cjs', 'mjs'] as const) {
    const file = join(WORK, `consumer.${kind}`);
    const account = `pkg-${kind}`;
    writeFileSync(file, script(kind, account));
    const output = execFileSync(process.execPath, [file], {
      cwd: WORK,
      encoding: 'utf8',
      env: { ...process.env, ...QUIET_SDK_ENV },
    });
    expect(JSON.parse(output.trim().split('\n').pop()!)).toEqual({
      created: 'created',
      opened: 'opened',
      refused: ['INVALID_INPUT', 'units'],
    });
    const listed = await invoke('account-trades', eventFor('account-trades', { account, query: {} }));
    expect(listed.body.trades).toEqual([
      expect.objectContaining({
        id: 't-1',
        instrument: 'BTC_USDT',
        units: '0.001',
        openPrice: '91000.5',
        status: 'open',
        currency: 'USDT',
        market: 'spot',
        leverage: '1',
        fees: [{ amount: '0.000001', currency: 'BTC', leg: 'open' }],
        orderIds: ['o-1'],
      }),
    ]);
  }
});

it('its types compile for an ES module and a CommonJS consumer alike', () => {
  const body = `
    const writer = createWriter({ stage: 'local', endpoint: 'http://127.0.0.1:8000' });
    const outcome: 'opened' | 'unchanged' = await writer.openTrade('main', { id: 't-1', instrument: 'EUR_USD', side: 'buy', units: '1', openPrice: '1.1', openTime: '2026-11-22T09:00:00.000Z' });
    const results: TradeResult[] = await writer.recordTrades('main', []);
    const code: WriterErrorCode | undefined = results.find((result) => 'error' in result && result.error instanceof WriterError) ? 'UNAVAILABLE' : undefined;
    // @ts-expect-error amounts are decimal strings, never numbers
    await writer.updateTradeMarks('main', 't-1', { unrealizedPL: 1 });
    const close: CloseTrade = { closePrice: '1.2', closeTime: '2026-11-22T10:00:00.000Z', realizedPL: '9.5', reason: 'take_profit', fees: [{ amount: '0.5', currency: 'USD' }], orderIds: ['o-2'] };
    await writer.closeTrade('main', 't-1', close);
    // @ts-expect-error a fee's amount is a decimal string too
    const fee: FeeInput = { amount: 0.5, currency: 'USD' };
    const market: Market = 'futures';
    console.log(outcome, code, fee, market);`;
  writeFileSync(
    join(WORK, 'consumer-types.mts'),
    `import { createWriter, WriterError, type CloseTrade, type FeeInput, type Market, type TradeResult, type WriterErrorCode } from '@trading-bot-api/writer';\n${body}\nexport {};\n`,
  );
  writeFileSync(
    join(WORK, 'consumer-types.cts'),
    `import { createWriter, WriterError, type CloseTrade, type FeeInput, type Market, type TradeResult, type WriterErrorCode } from '@trading-bot-api/writer';\nasync function main() {${body}\n}\nvoid main();\n`,
  );
  // The package's own declarations are checked as sources: copies beside them, where their imports resolve as the
  // originals' do, so a declaration that names a file the package does not ship, or a name it never declares, fails
  // here. Every other declaration file (the AWS SDK's, Node's) is the compiler's to skip: checking them cost some
  // 6 CPU-seconds a run and tests nothing of ours.
  const own = ['mts', 'cts'].map((extension) => {
    const copy = join(INSTALLED, 'dist', `declarations-as-source.${extension}`);
    copyFileSync(join(INSTALLED, 'dist', `index.d.${extension}`), copy);
    return copy;
  });
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const args = [
    '--noEmit',
    '--strict',
    '--module',
    'nodenext',
    '--moduleResolution',
    'nodenext',
    '--target',
    'es2022',
    '--types',
    'node',
    '--skipLibCheck',
  ];
  // The compiler's own report when it fails (its errors go to standard output).
  const compiled = spawnSync(process.execPath, [tsc, ...args, 'consumer-types.mts', 'consumer-types.cts', ...own], {
    cwd: WORK,
    encoding: 'utf8',
  });
  expect({ status: compiled.status, errors: compiled.stdout }).toEqual({ status: 0, errors: '' });
});
