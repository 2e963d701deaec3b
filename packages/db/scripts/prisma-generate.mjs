// `prisma generate` works offline, but the CLI insists that a schema engine binary
// exists (it only checks that the file is there). Point it at this script.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY:
    process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? fileURLToPath(import.meta.url),
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
  CHECKPOINT_DISABLE: '1',
};
execFileSync('prisma', ['generate', '--schema', 'prisma/schema.prisma'], { stdio: 'inherit', env });
