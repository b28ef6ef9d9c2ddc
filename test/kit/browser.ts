/**
 * Chromium for the tests that drive the dashboard (playwright-core, Debian's browser: chromium.ts), the
 * screenshots they leave in test-artifacts/screenshots/ (git-ignored), and the console errors they must not cause.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { chromiumPath } from './chromium';

export const SHOTS = join(__dirname, '..', '..', 'test-artifacts', 'screenshots');

/** Chromium without a sandbox (containers have none to give it) and without its background chatter. */
export function launchChromium(): Promise<Browser> {
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: chromiumPath(),
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** A screenshot of the whole page, as test-artifacts/screenshots/<name>.png. */
export async function shot(target: Page, name: string): Promise<void> {
  await target.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/**
 * The console errors and uncaught exceptions of the pages watched, but the console errors of what a test does on
 * purpose while `expecting` (cutting the API off, a refused request, asking for a 404), and the 404 of an account's
 * reconciliation, which is how the account's view learns no exchange feed reconciles it (its panel stays hidden).
 */
export class ConsoleErrors {
  readonly seen: string[] = [];
  expecting = false;

  watch(target: Page): void {
    target.on('console', (message) => {
      const unreconciled = /\/reconciliation$/.test(message.location().url ?? '') && message.text().includes('404');
      if (message.type() === 'error' && !this.expecting && !unreconciled) this.seen.push(`${target.url()}: ${message.text()}`);
    });
    target.on('pageerror', (error) => this.seen.push(`${target.url()}: ${error.message}`));
  }
}
