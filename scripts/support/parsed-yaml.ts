/**
 * A YAML file of the project (serverless.yml, openapi.yaml) as the value `parse` makes of its text, kept as JSON in
 * .cache/parsed-yaml/ under a hash of the text: parsing them took some 0.2 CPU-seconds in every test file that reads
 * them (a test run has dozens), and reading the JSON takes a few milliseconds. The hash names the text, so a changed
 * file is parsed again; the value must be plain JSON (the project's files hold no dates or binary).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CACHE = join(__dirname, '..', '..', '.cache', 'parsed-yaml');

export function parsedYaml<T>(file: string, parse: (text: string) => T): T {
  const text = readFileSync(file, 'utf8');
  const cached = join(CACHE, `${createHash('sha256').update(text).digest('hex')}.json`);
  try {
    return JSON.parse(readFileSync(cached, 'utf8')) as T;
  } catch {
    // Not parsed yet: parse it now.
  }
  const value = parse(text);
  try {
    mkdirSync(CACHE, { recursive: true });
    // Written whole, then renamed: processes reading it meanwhile see the old file or the new one.
    const part = `${cached}.${process.pid}.part`;
    writeFileSync(part, JSON.stringify(value));
    renameSync(part, cached);
  } catch {
    // A read-only checkout: parsed every time, as before.
  }
  return value;
}
