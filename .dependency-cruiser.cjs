/**
 * The import rules of src/ (docs/architecture.md, "Layers"), checked by `npm run lint`;
 * test/unit/dependency-rules.test.ts shows each rule refusing a deliberately wrong import.
 */

/** The feature folders: what src/db/ and src/graphql/ may not import. */
const FEATURE_FOLDERS =
  '^src/(api|approvals|auth|catalog|credentials|egress|executor|gateway|identity|jobs|ledger|llm|mcp|orgs|policy|realtime|recovery|runs|runtime|seed|telemetry|upstream|vendors|webhooks)/';

/** The state machines' owners (docs/architecture.md, "State machines and their owners"). */
const STATE_OWNERS = '^src/(runs/run-state|gateway/tool-call-state|approvals/approval-state)[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A module may not reach itself through its imports.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'state-owners-below-runtime',
      severity: 'error',
      comment:
        "A state machine's owner is below the agent loop and the transports: it reaches neither runtime/, api/, realtime/, app/ nor cli/, even through other modules.",
      from: { path: STATE_OWNERS },
      to: { path: '^src/(runtime|api|realtime|app|cli)/', reachable: true },
    },
    {
      name: 'run-record-below-runtime',
      severity: 'error',
      comment: 'src/runs/ is the run record the gateway uses; the agent loop (src/runtime/) uses the gateway, never the other way.',
      from: { path: '^src/(runs|gateway|approvals|policy|ledger|executor|vendors|mcp|upstream)/' },
      to: { path: '^src/runtime/' },
    },
    {
      name: 'ledger-not-above-realtime',
      severity: 'error',
      comment: 'The ledger notes its appends (ledger/ledger-appends.ts); realtime/ publishes them. It imports nothing from realtime/ or api/.',
      from: { path: '^src/ledger/' },
      to: { path: '^src/(realtime|api)/' },
    },
    {
      name: 'db-knows-no-feature',
      severity: 'error',
      comment: 'src/db/ is below the features: the app passes the entity list (src/app/entities.ts).',
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
      name: 'only-entries-import-app',
      severity: 'error',
      comment: 'src/app/ composes everything; only the CLI (and the app itself) import it, never a feature, db or graphql.',
      from: { path: '^src/', pathNot: '^src/(app|cli)/' },
      to: { path: '^src/app/' },
    },
    {
      name: 'config-knows-no-vendor',
      severity: 'error',
      comment: 'Configuration declares the vendor endpoint variables itself (VENDOR_ENDPOINTS); it never loads the vendors or their sandboxes.',
      from: { path: '^src/config/' },
      to: { path: '^src/(vendors|upstream)/' },
    },
    {
      name: 'app-error-knows-no-transport',
      severity: 'error',
      comment: 'AppError is a plain Error; the GraphQL edge (graphql/format-error.ts) converts it.',
      from: { path: '^src/errors/' },
      to: { path: 'node_modules/(graphql|@apollo|type-graphql|graphql-ws)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(node_modules|dist)/' },
  },
};
