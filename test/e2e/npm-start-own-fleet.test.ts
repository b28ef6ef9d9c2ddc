/**
 * An operator's own fleet on one machine (docs/operations.md): `DEMO=off npm start` starts with no account and no
 * demo bot; opened to a reverse proxy's Host name (ALLOWED_HOSTS), it needs keys and answers that name as well as
 * the loopback ones, and no other.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { http } from '../kit/http';
import { npmStart, type Started } from '../kit/npm-start';

jest.setTimeout(240_000);

const ROOT = join(__dirname, '..', '..');
const run = promisify(execFile);

let started: Started;
beforeAll(async () => {
  started = await npmStart({ DEMO: 'off', AUTH: 'on', ALLOWED_HOSTS: 'bots.example.com' });
});
afterAll(() => {
  if (started?.child.exitCode === null) started.child.kill('SIGKILL');
});

it('starts with zero accounts, no demo bot, and a Host name the operator allowed', async () => {
  expect(started.output()).toContain('  Demo: off (DEMO=off)');
  expect(started.output()).toContain(`listening on 127.0.0.1:${started.ports.PORT}, answering the Host names localhost, bots.example.com`);
  const keys = await run(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'scripts', 'keys.ts'), 'create', '--accounts', '*', '--label', 'proxy', '--quiet'],
    { cwd: ROOT, env: started.env },
  );
  expect(keys.stderr).toBe(`keys: writing to stage local on DynamoDB Local at http://127.0.0.1:${started.ports.DB_PORT}\n`);
  const key = keys.stdout.trim();
  const url = `http://127.0.0.1:${started.ports.PORT}/api/accounts`;
  // As a reverse proxy forwards it: the public name in Host.
  const accounts = await http(url, { headers: { 'x-api-key': key, host: 'bots.example.com' } });
  expect([accounts.status, accounts.body.accounts]).toEqual([200, []]);
  expect((await http(url, { headers: { host: 'bots.example.com' } })).status).toBe(401);
  expect((await http(url, { headers: { 'x-api-key': key, host: 'other.example.com' } })).status).toBe(421);
});
