// The shape every local Serverless plugin here shares: a class Serverless constructs, whose hooks each call a plain
// function with the `serverless` instance. The plugins that edit the deployed template run at
// `before:package:finalize`, once it is compiled and before it is packaged (so `serverless package`'s output, which
// test/package/ reads, is what deploys).
'use strict';

/** A plugin class whose hooks call `steps[hook](serverless)`. */
module.exports = (steps) =>
  class {
    constructor(serverless) {
      this.hooks = Object.fromEntries(Object.entries(steps).map(([hook, step]) => [hook, () => step(serverless)]));
    }
  };
