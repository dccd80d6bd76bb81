/** The feature folders: what src/db/ and src/graphql/ may not import. */
const FEATURE_FOLDERS =
  '^src/(api|approvals|auth|catalog|credentials|egress|events|executor|gateway|jobs|ledger|llm|mcp|orgs|policy|recovery|runs|seed|telemetry|upstream|vendors|webhooks)/';

/**
 * The import rules of src/ (docs/architecture.md, "Layers"), checked by `npm run lint`.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'warn',
      comment: 'A module may not reach itself through its imports.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'db-knows-no-feature',
      severity: 'error',
      comment: 'src/db/ is below the features: the app passes the entity list (src/app-entities.ts).',
      from: { path: '^src/db/' },
      to: { path: FEATURE_FOLDERS },
    },
    {
      name: 'graphql-knows-no-feature',
      severity: 'error',
      comment:
        'src/graphql/ holds generic helpers: features declare their loaders and services (RequestLoaders, RequestServices) and the app assembles them. Only the caller and the access matrix, which the auth checker reads, are below it.',
      from: { path: '^src/graphql/' },
      to: { path: FEATURE_FOLDERS, pathNot: '^src/auth/(caller|access|roles)[.]ts$' },
    },
    {
      name: 'registries-not-above-app',
      severity: 'error',
      comment: 'src/db/ and src/graphql/ do not import the app layer (composition, services, server).',
      from: { path: '^src/(db|graphql)/' },
      to: { path: '^src/(app-[^/]+|compose|server|main)[.]ts$' },
    },
    {
      name: 'ledger-not-above-realtime',
      severity: 'error',
      comment: 'The ledger notes its appends (ledger-appends.ts); events/ publishes them. It imports nothing from events/ or api/.',
      from: { path: '^src/ledger/' },
      to: { path: '^src/(events|api)/' },
    },
    {
      name: 'app-error-knows-no-transport',
      severity: 'error',
      comment: 'AppError is a plain Error; the GraphQL edge (errors/format-error.ts) converts it.',
      from: { path: '^src/errors/(app-error|error-codes)[.]ts$' },
      to: { path: 'node_modules/(graphql|@apollo|type-graphql)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(node_modules|dist)/' },
  },
};
