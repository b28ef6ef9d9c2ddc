// A local Serverless plugin for the commands that run the functions on this machine.
//
// `serverless invoke local`: every function reads its configuration when it loads and stops on a missing value
// (api/config.ts). Loaded by invoke local, such a stop left the command hanging after the stack trace
// (serverless-esbuild disposes its build context only after a successful invocation, and the build service keeps
// the process alive). Outside AWS nothing resolves the CloudFormation reference that stands for CURSOR_SECRET, so
// this checks it before anything is built, and stops with one line.
//
// `serverless offline`: the functions are bundled once at start and loaded by serverless offline's own process;
// the build contexts serverless-esbuild keeps for rebuilding (some 300 MB in esbuild's service process) are let go.
// A test run builds the bundles once (test/kit/function-bundles.ts, with serverless.yml's esbuild options)
// and names their folder in OFFLINE_PREBUILT_BUNDLES: each serverless offline it starts then loads those instead of
// bundling every function again. Only `offline`: a package or an invoke still builds its own.
'use strict';

const { cursorSecretProblem } = require('./stages');

function usePrebuiltBundles(serverless) {
  if (serverless.processedInput?.commands?.[0] !== 'offline') return;
  // The exchange feed is scheduled only in AWS; locally it is `npm run bridge -- exchange`: serverless offline
  // neither bundles it (ccxt) nor runs it.
  serverless.service.getFunction('exchangeFeed').skipEsbuild = true;
  const folder = process.env.OFFLINE_PREBUILT_BUNDLES;
  if (!folder) return;
  // serverless-esbuild bundles no function marked so, and keeps a location set here (its pre-offline.js).
  for (const name of serverless.service.getAllFunctions()) serverless.service.getFunction(name).skipEsbuild = true;
  const { custom } = serverless.service;
  custom['serverless-offline'] = { ...custom['serverless-offline'], location: folder };
}

function checkCursorSecret(serverless) {
  const problem = cursorSecretProblem(serverless.service.provider.environment?.CURSOR_SECRET);
  if (problem) {
    throw new serverless.classes.Error(
      `${problem}: export CURSOR_SECRET (32 or more characters; \`npm start\` keeps its own in .data/cursor-secret) and invoke again.`,
    );
  }
}

async function releaseBuildContexts(serverless) {
  const bundler = serverless.pluginManager.plugins.find((plugin) => typeof plugin.disposeContexts === 'function');
  await bundler?.disposeContexts();
  // The service process keeps its memory after the contexts go; it starts again by itself should anything build.
  await require('esbuild').stop();
}

module.exports = require('./plugin')({
  initialize: usePrebuiltBundles,
  'before:invoke:local:loadEnvVars': checkCursorSecret,
  'before:offline:start:init': releaseBuildContexts,
});
