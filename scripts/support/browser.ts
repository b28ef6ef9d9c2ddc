/**
 * The browser the dashboard's tests drive: Debian's Chromium (`apt-get install -y chromium`), or whatever
 * CHROMIUM_PATH names. playwright-core drives it; Playwright's own browser download does not work here (no
 * internet), and is not needed.
 */
import { existsSync } from 'node:fs';
import { PrerequisiteError } from '../local-stack/dynamodb-local';

export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH || '/usr/bin/chromium';
}

/** Stops with how to install it when the browser is missing. */
export function checkChromium(): void {
  if (!existsSync(chromiumPath())) {
    throw new PrerequisiteError(
      `the dashboard's tests need Chromium at ${chromiumPath()}: on Debian or Ubuntu, sudo apt-get install -y chromium (or set CHROMIUM_PATH to a Chromium or Chrome binary)`,
    );
  }
}
