/**
 * The README's TypeScript snippet runs as quoted: every line of it is a line of examples/typescript-bot/bot.ts, in
 * the same order, and test/browser/dashboard.test.ts runs that file against npm start. test/e2e/npm-start.test.ts
 * compares the marked part only; this catches a line added around it (the README once ended with `recordTrades(account,
 * history)` and no `history` anywhere) without starting a database.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** The lines of `text` that say something, without trailing spaces. */
const meaningful = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim());

it('the README’s TypeScript snippet is lines of the example, in order', () => {
  const section = read('README.md').split('### TypeScript: the writer package')[1] ?? '';
  const snippet = section.match(/```ts\n([\s\S]*?)```/)?.[1];
  expect(snippet).toBeDefined();
  const example = meaningful(read('examples/typescript-bot/bot.ts'));
  let at = 0;
  const missing: string[] = [];
  for (const line of meaningful(snippet!)) {
    const found = example.indexOf(line, at);
    if (found < 0) missing.push(line);
    else at = found + 1;
  }
  expect(missing).toEqual([]);
});
