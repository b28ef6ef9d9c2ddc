/**
 * The browser the dashboard's tests drive: whatever CHROMIUM_PATH names, else Debian's Chromium headless shell
 * (`apt-get install -y chromium-headless-shell`) when installed, else Debian's Chromium (`apt-get install -y
 * chromium`). playwright-core drives it; Playwright's own browser download does not work here (no internet), and is
 * not needed.
 *
 * The headless shell is the same Chromium without the desktop browser around it, the build Playwright itself runs
 * headless tests on. Measured on the dashboard's tests (two cores): 14 CPU-seconds against 24 for the full browser,
 * with the same results.
 */
import { existsSync } from 'node:fs';
import { PrerequisiteError } from '../../scripts/local-stack/dynamodb-local';

const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';
const CHROMIUM = '/usr/bin/chromium';

export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH || (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : CHROMIUM);
}

/** Stops with how to install it when the browser is missing. */
export function checkChromium(): void {
  if (!existsSync(chromiumPath())) {
    throw new PrerequisiteError(
      `the dashboard's tests need Chromium at ${chromiumPath()}: on Debian or Ubuntu, sudo apt-get install -y chromium-headless-shell (or chromium; or set CHROMIUM_PATH to a Chromium or Chrome binary)`,
    );
  }
}
