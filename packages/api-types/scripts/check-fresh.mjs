// Fails when the committed types are out of date with the spec:
// 1. the file on disk must be what openapi-typescript generates from the bundled spec now;
// 2. in a git checkout, the file must not differ from what git has staged/committed,
//    so a spec change cannot land without its regenerated types.
import { execFileSync } from 'node:child_process';

const file = 'src/generated/schema.ts';

function run(cmd, args) {
  try {
    execFileSync(cmd, args, { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

if (
  !run('openapi-typescript', [
    '../../spec/dist/openapi.json',
    '-o',
    file,
    '--default-non-nullable',
    'false',
    '--check',
  ])
) {
  console.error(`${file} is out of date with spec/: run \`pnpm generate\` and commit it.`);
  process.exit(1);
}
if (!run('node', ['scripts/generate-access.mjs', '--check'])) {
  console.error(
    'src/generated/access.ts is out of date with spec/: run `pnpm generate` and commit it.',
  );
  process.exit(1);
}
if (
  run('git', ['rev-parse', '--is-inside-work-tree']) &&
  !run('git', ['diff', '--quiet', '--', file])
) {
  console.error(
    `${file} was regenerated from a changed spec: review and commit it (git add ${file}).`,
  );
  process.exit(1);
}
console.log(`${file} is fresh.`);
