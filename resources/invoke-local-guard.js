// A local Serverless plugin for `serverless invoke local`: every function reads its configuration when it loads and
// stops on a missing value (lib/config.ts). Loaded by invoke local, such a stop left the command hanging after the
// stack trace (serverless-esbuild's build service stays open). Outside AWS nothing resolves the CloudFormation
// reference that stands for CURSOR_SECRET, so this checks it before anything is built, and stops with one line.
'use strict';

class InvokeLocalGuard {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { 'before:invoke:local:loadEnvVars': () => this.check() };
  }

  check() {
    const secret = this.serverless.service.provider.environment?.CURSOR_SECRET ?? '';
    if (typeof secret !== 'string' || secret.startsWith('{{resolve:') || secret.length < 32) {
      throw new this.serverless.classes.Error(
        'CURSOR_SECRET is not set: export CURSOR_SECRET (32 or more characters; `npm start` keeps its own in .data/cursor-secret) and invoke again.',
      );
    }
  }
}

module.exports = InvokeLocalGuard;
