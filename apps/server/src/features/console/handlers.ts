import { ApiError, type Handler, type StaticFile, sendStaticFile } from '../../http/index.js';

/** The console as built: its page, and its hashed files by name. */
export interface ConsoleFiles {
  page: StaticFile;
  assets: ReadonlyMap<string, StaticFile>;
}

/**
 * Everything the console loads comes from this origin, and nothing runs inline: the build emits
 * no inline script or style. The API key never leaves the page except to this origin's API.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** A file's name changes with its content: it may be kept without asking again. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The console's page (at `/console` and at each view's address) and its hashed files. */
export function consoleHandlers(files: ConsoleFiles) {
  const sendPage: Handler<'getConsole'> = ({ req, res }) => {
    res.setHeader('Content-Security-Policy', CONSOLE_CSP);
    sendStaticFile(req, res, files.page);
  };
  const getConsoleView: Handler<'getConsoleView'> = ({ req, res }) => {
    res.setHeader('Content-Security-Policy', CONSOLE_CSP);
    sendStaticFile(req, res, files.page);
  };
  const getConsoleAsset: Handler<'getConsoleAsset'> = ({ params, req, res }) => {
    const file = files.assets.get(params.file);
    if (!file) throw new ApiError('not_found', `The console has no file ${params.file}.`);
    res.setHeader('Content-Security-Policy', CONSOLE_CSP);
    sendStaticFile(req, res, file, IMMUTABLE);
  };
  return { getConsole: sendPage, getConsoleView, getConsoleAsset };
}
