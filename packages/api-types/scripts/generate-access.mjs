// Writes src/generated/access.ts from the bundled spec: the operations that take no API key
// (`x-secadmin-access: public` or `token`), so the server types their handlers without one.
// With --check, exits 1 when the committed file differs from what the spec gives now.
import { readFileSync, writeFileSync } from 'node:fs';

const file = 'src/generated/access.ts';
const spec = JSON.parse(readFileSync('../../spec/dist/openapi.json', 'utf8'));
const keyless = Object.values(spec.paths)
  .flatMap((item) => Object.values(item))
  .filter((op) => op?.operationId && typeof op['x-secadmin-access'] === 'string')
  .map((op) => op.operationId)
  .sort();

const text = `// Generated from spec/dist/openapi.json by scripts/generate-access.mjs: do not edit.

/** Operations that take no API key (\`x-secadmin-access: public\` or \`token\`). */
export type KeylessOperationId =
${keyless.map((id) => `  | '${id}'`).join('\n')};
`;

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch {}
  if (current !== text) {
    console.error(`${file} is out of date with spec/: run \`pnpm generate\` and commit it.`);
    process.exit(1);
  }
} else writeFileSync(file, text);
