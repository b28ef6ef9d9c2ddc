// What the local Serverless plugins that edit the deployed template share: their step runs once the template is
// compiled, before it is packaged (so `serverless package`'s output, which test/package/ reads, is what deploys).
'use strict';

/** A plugin class that calls `edit(serverless)` at `before:package:finalize`. */
module.exports = (edit) =>
  class {
    constructor(serverless) {
      this.hooks = { 'before:package:finalize': () => edit(serverless) };
    }
  };
