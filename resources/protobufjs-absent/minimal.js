// What ccxt's `protobufjs/minimal` resolves to in the deploy bundles (serverless.yml's esbuild alias): protobufjs is not
// installed, and only exchanges the feed does not mirror (MEXC's streams, dYdX) would use it.
'use strict';

module.exports = {};
