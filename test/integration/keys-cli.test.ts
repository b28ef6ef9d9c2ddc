/** `npm run keys`: create prints the key last and only once, list shows it, revoke turns its answers into 403. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Harness, eventFor, startHarness, TEST_STAGE } from '../support/api-harness';
import { runAuthorizer } from '../support/gateway';

jest.setTimeout(60_000);

const ROOT = join(__dirname, '..', '..');
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ AUTH_MODE: 'required' });
});
afterAll(() => harness.close());

async function keys(...args: string[]) {
  const { stdout } = await promisify(execFile)(join(ROOT, 'node_modules', '.bin', 'tsx'), [join(ROOT, 'scripts', 'keys.ts'), ...args, '--stage', TEST_STAGE, '--endpoint', harness.db.endpoint], { cwd: ROOT });
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
  expect(listed.join('\n')).not.toContain(key.split('_')[2]);

  await keys('revoke', keyId);
  expect((await keys('list')).find((line) => line.startsWith(keyId))).toContain('disabled');
  const denied = await runAuthorizer(eventFor('accounts', { headers: { 'x-api-key': key } }));
  expect(denied.policyDocument.Statement[0]).toMatchObject({ Effect: 'Deny' });
});

it('refuses bad input with a usage message', async () => {
  await expect(keys('create', '--accounts', 'all', '--label', 'x')).rejects.toThrow(/accounts/);
  await expect(keys('revoke', 'no-such-key')).rejects.toThrow(/no key/);
});
