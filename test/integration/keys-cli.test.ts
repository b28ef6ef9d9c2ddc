/**
 * `npm run keys`: create prints the key last and only once, list shows it, revoke turns its answers into 403. It
 * keeps a key's accounts as a set, refuses accounts that do not exist unless forced, and revokes a whole key
 * without printing it back. (That it finds `npm start`'s database through DB_PORT is tried against `npm start`
 * itself, in test/e2e/npm-start-keys.test.ts.)
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateDataset } from '../../scripts/demo/dataset';
import { type Harness, eventFor, startHarness } from '../kit/api-harness';
import { runAuthorizer } from '../kit/gateway';
import { scriptArgs } from '../kit/scripts';

jest.setTimeout(60_000);

const ROOT = join(__dirname, '..', '..');
const IDS = ['acc-1', 'acc-2'];
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ AUTH_MODE: 'required' });
  await harness.load(generateDataset({ tradeCounts: [3, 2], accountId: (i) => IDS[i], seed: 4 }));
});
afterAll(() => harness.close());

/** Runs the CLI against this file's stage and database. */
async function keys(...args: string[]) {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...scriptArgs('keys'), ...args, '--stage', harness.stage, '--endpoint', harness.db.endpoint],
    { cwd: ROOT },
  );
  return stdout.trim().split('\n');
}

it('creates, lists and revokes a key', async () => {
  const created = await keys('create', '--accounts', 'acc-1,acc-2', '--label', 'dashboard');
  const key = created[created.length - 1];
  expect(key).toMatch(/^tbk_[a-f0-9]{16}_[A-Za-z0-9_-]{43}$/);
  const keyId = key.split('_')[1];

  const allowed = await runAuthorizer(eventFor('accounts', { headers: { 'x-api-key': key } }));
  expect(allowed.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
  expect(allowed.context).toMatchObject({ accounts: 'acc-1,acc-2' });

  const listed = await keys('list');
  const row = listed.find((line) => line.startsWith(keyId))!;
  expect(row.split('\t')).toEqual([keyId, 'active', expect.any(String), 'dashboard', 'acc-1,acc-2']);
  expect(listed.join('\n')).not.toContain(key.replace(/^tbk_[^_]+_/, ''));

  await keys('revoke', keyId);
  expect((await keys('list')).find((line) => line.startsWith(keyId))).toContain('disabled');
  const denied = await runAuthorizer(eventFor('accounts', { headers: { 'x-api-key': key } }));
  expect(denied.policyDocument.Statement[0]).toMatchObject({ Effect: 'Deny' });
});

it('keeps a repeated account once', async () => {
  const created = await keys('create', '--accounts', 'acc-2,acc-1,acc-2', '--label', 'twice');
  const keyId = created[created.length - 1].split('_')[1];
  expect((await keys('list')).find((line) => line.startsWith(keyId))!.split('\t')[4]).toBe('acc-1,acc-2');
});

it('refuses an account that does not exist unless forced', async () => {
  await expect(keys('create', '--accounts', 'acc-1,acc-9', '--label', 'typo')).rejects.toThrow(/no account acc-9.*--force/s);
  const forced = await keys('create', '--accounts', 'acc-1,acc-9', '--label', 'later', '--force');
  expect(forced[forced.length - 1]).toMatch(/^tbk_/);
});

it('revokes a key given whole, without printing its secret', async () => {
  const created = await keys('create', '--accounts', 'acc-1', '--label', 'leaked');
  const key = created[created.length - 1];
  const output = await keys('revoke', key);
  expect(output.join('\n')).toContain(key.split('_')[1]);
  expect(output.join('\n')).not.toContain(key.replace(/^tbk_[^_]+_/, ''));
  const denied = await runAuthorizer(eventFor('accounts', { headers: { 'x-api-key': key } }));
  expect(denied.policyDocument.Statement[0]).toMatchObject({ Effect: 'Deny' });
});

it('refuses bad input with a usage message', async () => {
  await expect(keys('create', '--accounts', 'all', '--label', 'x')).rejects.toThrow(/accounts/);
  await expect(keys('revoke', 'no-such-key')).rejects.toThrow(/no key/);
});
