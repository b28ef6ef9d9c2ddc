// The direction of the packages (docs/architecture.md draws it), checked by `npm run lint:imports` in `npm test`:
//
//   core ◄── writer ◄── feeds            core: the domain and the store, at the bottom
//     ▲                                  writer: core only; its entry is all anyone else uses
//     └──── api ◄── functions            feeds: the writer's entry only; api: core only (its operations never its
//                                        http/); functions: the API
//
// Programs (scripts/), the tests and the bench sit on top and may import any of them, but never a package's
// modules past its entry where it has one (the writer's src/). A type-only import counts: the compiler reads it.
'use strict';

/** Node's own modules: every layer may use those (and installed packages, node_modules/, which every pathNot lets by). */
const outside = { dependencyTypesNot: ['core'] };

/** A rule of the direction: what `from` matches may not import what `to` matches. */
const rule = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to });
/** What `from` matches may import only `allowed` (and Node's own modules and installed packages). */
const only = (name, comment, from, allowed) => rule(name, comment, from, { pathNot: ['^node_modules/', ...allowed], ...outside });

module.exports = {
  forbidden: [
    only(
      'core-is-the-bottom',
      'The core package imports nothing of the writer, the feeds, the API, the programs or the tests (only itself, resources/ and the contract types).',
      { path: '^packages/core/' },
      ['^packages/core/', '^resources/[^/]+\\.js$', '^client/schema\\.d\\.ts$'],
    ),
    only(
      'writer-on-core-only',
      'The writer uses the core package and resources/tables.js, nothing else of the repository.',
      { path: '^packages/writer/' },
      ['^packages/writer/', '^packages/core/src/', '^resources/tables\\.js$', '^test/kit/'],
    ),
    rule(
      'writer-tests-only-in-the-writer',
      "The writer's own tests (packages/writer/test) are the only modules of the writer that may use the test kit.",
      { path: '^packages/writer/src/' },
      { path: '^test/' },
    ),
    only(
      'feeds-on-the-writer-entry-only',
      "The feeds use the writer's public entry (and themselves): what a bot's own program could use.",
      { path: '^packages/feeds/' },
      ['^packages/feeds/', '^packages/writer/src/index\\.ts$'],
    ),
    rule(
      'writer-entry-only',
      'Nothing outside the writer imports its modules past its entry (src/index.ts): that entry is its public API.',
      { pathNot: '^packages/writer/' },
      { path: '^packages/writer/src/', pathNot: '^packages/writer/src/index\\.ts$' },
    ),
    only(
      'api-on-core-only',
      'The API (api/) uses the core package, the contract (client/) and resources/, nothing of the writer, the feeds or the programs.',
      { path: '^api/' },
      ['^api/', '^packages/core/src/', '^client/', '^resources/[^/]+\\.js$'],
    ),
    rule(
      'operations-not-on-http',
      'What an operation does knows nothing of HTTP (api/http/: events, headers, problems, representations): a command can call it as it is.',
      { path: '^api/operations/' },
      { path: '^api/http/' },
    ),
    only(
      'functions-on-the-api',
      'A function is a line over the API (and core): no store, writer, feed or program of its own.',
      { path: '^functions/', pathNot: '^functions/exchange-feed\\.ts$' },
      ['^api/', '^packages/core/src/'],
    ),
    only(
      'exchange-feed-function-is-a-feed',
      "The exchange feed's scheduled function is a feed (as `npm run bridge -- exchange`): the feeds, the writer's entry and the alerts' events and topic; no API function imports it or the feeds.",
      { path: '^functions/exchange-feed\\.ts$' },
      ['^packages/feeds/', '^packages/writer/src/index\\.ts$', '^packages/core/src/', '^api/alerts/', '^resources/[^/]+\\.js$'],
    ),
    only('dashboard-on-the-client', 'The dashboard reads the API through the typed client only.', { path: '^dashboard/' }, [
      '^dashboard/',
      '^client/',
    ]),
    only(
      'client-on-the-contract',
      "The typed client is the contract's types and openapi-fetch (it names the API's shapes from core's types.ts).",
      { path: '^client/' },
      ['^client/', '^packages/core/src/types\\.ts$'],
    ),
    rule(
      'no-circular',
      'Modules that import each other, directly or through others, cannot be understood, moved or tested alone.',
      {},
      { circular: true },
    ),
    rule(
      'no-unresolvable',
      'An import that resolves to nothing: a package name missing from tsconfig.json paths, or a file moved away.',
      {},
      { couldNotResolve: true },
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|\\.esbuild[^/]*|\\.serverless)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.d.ts', '.js', '.cjs', '.mjs', '.json'],
    },
  },
};
