// Fails when the README's list of error codes misses a code of the spec's error envelope.
import { readFileSync } from 'node:fs';

const spec = JSON.parse(readFileSync('../../spec/dist/openapi.json', 'utf8'));
const codes = spec.components.schemas.Error.properties.error.properties.code.enum;
const readme = readFileSync('README.md', 'utf8');
const missing = codes.filter((code) => !readme.includes(`\`${code}\``));
if (missing.length > 0) {
  console.error(`README.md does not name the error code(s) ${missing.join(', ')}`);
  process.exit(1);
}
