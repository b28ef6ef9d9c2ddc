/**
 * `npm test` checks what the machine must have before anything else runs, and stops with one line naming what is
 * missing and how to install it: Java for DynamoDB Local, Chromium for the dashboard's tests.
 */
import { checkChromium } from './chromium';
import { checkJava, PrerequisiteError } from '../../scripts/local-stack/dynamodb-local';

try {
  checkJava();
  checkChromium();
} catch (error) {
  if (!(error instanceof PrerequisiteError)) throw error;
  console.error(`npm test: ${error.message}`);
  process.exit(1);
}
