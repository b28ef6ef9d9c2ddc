/**
 * The typed client's types are generated from openapi.yaml (`npm run client:generate`). This fails while the
 * committed client/schema.d.ts differs from what the generator makes of the document today, so the client cannot
 * drift from the contract the tests hold the API to.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

it('client/schema.d.ts is what openapi-typescript generates from openapi.yaml (else: npm run client:generate)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'client-types-'));
  try {
    const out = join(dir, 'schema.d.ts');
    execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), join(ROOT, 'openapi.yaml'), '-o', out],
      { cwd: ROOT, stdio: 'pipe' },
    );
    expect(readFileSync(join(ROOT, 'client', 'schema.d.ts'), 'utf8')).toBe(readFileSync(out, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
