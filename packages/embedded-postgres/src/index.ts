export {
  copyBinaries,
  EMBEDDED_PACKAGE,
  EmbeddedPostgresMissingError,
  embeddedBinaries,
  type PostgresBinaries,
} from './binaries.js';
export { freePort } from './free-port.js';
export {
  DEDICATED_USER,
  dedicatedUser,
  type OsUser,
  osUser,
  unprivilegedUser,
} from './unprivileged-user.js';

/** What every cluster made from these binaries is created with, whoever creates it. */
export const INITDB_OPTIONS = ['-U', 'postgres', '--encoding=UTF8', '--locale=C'];
