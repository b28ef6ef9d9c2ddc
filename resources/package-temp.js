// A local Serverless plugin for `serverless package` and `serverless deploy`: their temporary files in a folder of
// their own, removed when the command ends.
//
// serverless-esbuild zips each function from a copy it makes in the system's temporary folder, then fails to delete
// the copy (its remove is not recursive, and the error is swallowed): every package or deploy left one folder per
// function there, some 13 MB in all (found: some 3,800 such folders, 2.5 GB, after 194 test runs). Pointing TMPDIR
// at a private folder for the command's process puts those copies, and Serverless's own temporary files, where this
// removes them, whether the command succeeds or fails.
'use strict';

const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

function privateTemp(serverless) {
  const command = serverless.processedInput?.commands?.[0];
  if (command !== 'package' && command !== 'deploy') return;
  const folder = mkdtempSync(join(tmpdir(), 'trading-bot-package-'));
  // os.tmpdir() reads TMPDIR on every call.
  process.env.TMPDIR = folder;
  process.on('exit', () => rmSync(folder, { recursive: true, force: true }));
}

module.exports = require('./plugin')({ initialize: privateTemp });
