// Builds the package in the current directory for both module systems with tsc: ESM into
// dist/esm, CommonJS into dist/cjs. dist/cjs gets its own package.json ("type": "commonjs") so
// that Node and TypeScript read the .js and .d.ts files there as CommonJS.
// Usage: node ../../tooling/typescript/build-dual.mjs [tsconfig] (default tsconfig.build.json)
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const project = process.argv[2] ?? 'tsconfig.build.json';
const tsc = createRequire(join(process.cwd(), 'package.json')).resolve('typescript/bin/tsc');
const run = (...args) =>
  execFileSync(process.execPath, [tsc, '-p', project, ...args], { stdio: 'inherit' });

rmSync('dist', { recursive: true, force: true });
run('--outDir', 'dist/esm');
run(
  '--outDir',
  'dist/cjs',
  '--module',
  'commonjs',
  '--moduleResolution',
  'bundler',
  '--verbatimModuleSyntax',
  'false',
);
writeFileSync('dist/cjs/package.json', '{ "type": "commonjs" }\n');
