// The server's layering, by folder. `pnpm lint` (and so `pnpm test`) fails on any violation.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'No import cycles anywhere: move what both sides need into a module of its own.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'lib-imports-nothing-of-the-app',
      severity: 'error',
      comment:
        'src/lib/ holds app-independent helpers: it imports nothing of the app outside lib/.',
      from: { path: '^src/lib/' },
      to: { path: '^(src|test)/', pathNot: '^src/lib/' },
    },
    {
      name: 'http-imports-no-feature',
      severity: 'error',
      comment:
        'http/ is the plumbing every operation shares; features are wired in by the composition root.',
      from: { path: '^src/http/' },
      to: { path: '^src/features/' },
    },
    {
      name: 'storage-imports-no-feature',
      severity: 'error',
      comment:
        'storage/ keeps the connection and the transaction runner; each feature owns its tables.',
      from: { path: '^src/storage/' },
      to: { path: '^src/features/' },
    },
    {
      name: 'features-import-only-lib-storage-and-feature-apis',
      severity: 'error',
      comment:
        "A feature imports lib/, storage/, its own files, other features' api.ts and http/index.ts (what a handler or a dispatch step uses of http/) only: never another feature's module.ts or inner files.",
      from: { path: '^src/features/([^/]+)/', pathNot: '\\.test\\.ts$' },
      to: {
        path: '^src/',
        pathNot: [
          '^src/(lib|storage)/',
          '^src/features/$1/',
          '^src/features/[^/]+/api\\.ts$',
          '^src/http/index\\.ts$',
        ],
      },
    },
    {
      name: 'handlers-are-the-top-layer',
      severity: 'error',
      comment:
        "handlers → services → repositories: only a feature's module.ts builds its handlers; nothing below imports them.",
      from: { path: '^src/features/', pathNot: '(/handlers|/module|\\.test)\\.ts$' },
      to: { path: '^src/features/.+/handlers\\.ts$' },
    },
    {
      name: 'repositories-know-no-service',
      severity: 'error',
      comment: 'A repository is SQL only: it imports no service and no handler.',
      from: { path: '^src/features/.+/repository\\.ts$' },
      to: { path: '^src/features/.+/(service|handlers)\\.ts$' },
    },
    {
      name: 'feature-modules-only-from-the-composition-root',
      severity: 'error',
      comment:
        'How a feature is built (its module.ts) is known only to the composition root: the files directly under src/ (composition.ts, server.ts, the commands).',
      from: { path: '^src/.+/', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/features/[^/]+/module\\.ts$' },
    },
    {
      name: 'the-composition-root-sees-features-through-api-and-module',
      severity: 'error',
      comment:
        "Outside features, a feature is its api.ts and its module.ts: what is inside the folder (audit-log/chain, entries, …) is the feature's own.",
      from: { path: '^src/[^/]+\\.ts$', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/features/', pathNot: '^src/features/[^/]+/(api|module)\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
