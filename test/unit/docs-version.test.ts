/**
 * The contract's version has one home, `info.version` in openapi.yaml. The README and docs/api.md name it as the
 * current one ("API x.y") and the document's own history ends with it, so a version bump that forgets the prose
 * fails here instead of leaving the README saying two versions at once, as it once did.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const ROOT = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const { info } = parse(read('openapi.yaml'));

it('openapi.yaml has a version of the form major.minor', () => {
  expect(info.version).toMatch(/^\d+\.\d+$/);
});

it.each(['README.md', 'docs/api.md'])('%s names info.version as the current API version, and no other', (file) => {
  const named = [...read(file).matchAll(/\bAPI (\d+\.\d+)\b/g)].map((match) => match[1]);
  expect(named.length).toBeGreaterThan(0);
  expect(named).toEqual(named.map(() => info.version));
});

it('the history in openapi.yaml’s description ends with info.version', () => {
  const versions = info.description.match(/^## Versions\n([\s\S]*?)(?=^## )/m)?.[1] ?? '';
  const entries = [...versions.matchAll(/^- \*\*(\d+\.\d+)\*\*/gm)].map((match) => match[1]);
  expect(entries.at(-1)).toBe(info.version);
});
