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
      name: 'features-import-only-lib-storage-and-feature-indexes',
      severity: 'error',
      comment:
        "A feature imports lib/, storage/, its own files, other features' index.ts and http/index.ts (what a handler or a dispatch step uses of http/) only.",
      from: { path: '^src/features/([^/]+)/', pathNot: '\\.test\\.ts$' },
      to: {
        path: '^src/',
        pathNot: [
          '^src/(lib|storage)/',
          '^src/features/$1/',
          '^src/features/[^/]+/index\\.ts$',
          '^src/http/index\\.ts$',
        ],
      },
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
