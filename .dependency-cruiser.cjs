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

module.exports = {
  forbidden: [
    {
      name: 'core-is-the-bottom',
      comment:
        'The core package imports nothing of the writer, the feeds, the API, the programs or the tests (only itself, resources/ and the contract types).',
      severity: 'error',
      from: { path: '^packages/core/' },
      to: { pathNot: ['^node_modules/', '^packages/core/', '^resources/[^/]+\\.js$', '^client/schema\\.d\\.ts$'], ...outside },
    },
    {
      name: 'writer-on-core-only',
      comment: 'The writer uses the core package and resources/tables.js, nothing else of the repository.',
      severity: 'error',
      from: { path: '^packages/writer/' },
      to: { pathNot: ['^node_modules/', '^packages/writer/', '^packages/core/src/', '^resources/tables\\.js$', '^test/kit/'], ...outside },
    },
    {
      name: 'writer-tests-only-in-the-writer',
      comment: "The writer's own tests (packages/writer/test) are the only modules of the writer that may use the test kit.",
      severity: 'error',
      from: { path: '^packages/writer/src/' },
      to: { path: '^test/' },
    },
    {
      name: 'feeds-on-the-writer-entry-only',
      comment: "The feeds use the writer's public entry (and themselves): what a bot's own program could use.",
      severity: 'error',
      from: { path: '^packages/feeds/' },
      to: { pathNot: ['^node_modules/', '^packages/feeds/', '^packages/writer/src/index\\.ts$'], ...outside },
    },
    {
      name: 'writer-entry-only',
      comment: 'Nothing outside the writer imports its modules past its entry (src/index.ts): that entry is its public API.',
      severity: 'error',
      from: { pathNot: '^packages/writer/' },
      to: { path: '^packages/writer/src/', pathNot: '^packages/writer/src/index\\.ts$' },
    },
    {
      name: 'api-on-core-only',
      comment:
        'The API (api/) uses the core package, the contract (client/) and resources/, nothing of the writer, the feeds or the programs.',
      severity: 'error',
      from: { path: '^api/' },
      to: { pathNot: ['^node_modules/', '^api/', '^packages/core/src/', '^client/', '^resources/[^/]+\\.js$'], ...outside },
    },
    {
      name: 'operations-not-on-http',
      comment:
        'What an operation does knows nothing of HTTP (api/http/: events, headers, problems, representations): a command can call it as it is.',
      severity: 'error',
      from: { path: '^api/operations/' },
      to: { path: '^api/http/' },
    },
    {
      name: 'functions-on-the-api',
      comment: 'A function is a line over the API (and core): no store, writer, feed or program of its own.',
      severity: 'error',
      from: { path: '^functions/', pathNot: '^functions/exchange-feed\\.ts$' },
      to: { pathNot: ['^node_modules/', '^api/', '^packages/core/src/'], ...outside },
    },
    {
      name: 'exchange-feed-function-is-a-feed',
      comment:
        "The exchange feed's scheduled function is a feed (as `npm run bridge -- exchange`): the feeds, the writer's entry and the alerts' events and topic; no API function imports it or the feeds.",
      severity: 'error',
      from: { path: '^functions/exchange-feed\\.ts$' },
      to: {
        pathNot: [
          '^node_modules/',
          '^packages/feeds/',
          '^packages/writer/src/index\\.ts$',
          '^packages/core/src/',
          '^api/alerts/',
          '^resources/[^/]+\\.js$',
        ],
        ...outside,
      },
    },
    {
      name: 'dashboard-on-the-client',
      comment: 'The dashboard reads the API through the typed client only.',
      severity: 'error',
      from: { path: '^dashboard/' },
      to: { pathNot: ['^node_modules/', '^dashboard/', '^client/'], ...outside },
    },
    {
      name: 'client-on-the-contract',
      comment: "The typed client is the contract's types and openapi-fetch (it names the API's shapes from core's types.ts).",
      severity: 'error',
      from: { path: '^client/' },
      to: { pathNot: ['^node_modules/', '^client/', '^packages/core/src/types\\.ts$'], ...outside },
    },
    {
      name: 'no-circular',
      comment: 'Modules that import each other, directly or through others, cannot be understood, moved or tested alone.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-unresolvable',
      comment: 'An import that resolves to nothing: a package name missing from tsconfig.json paths, or a file moved away.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
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
