import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import type { ConsoleFiles } from './features/console/module.js';
import { loadStaticFile, type StaticFile } from './http/static-file.js';

/** The bundled spec, the rendered reference and its icon, as built (with compressed copies). */
export function loadSystemFiles() {
  const resolve = createRequire(import.meta.url).resolve;
  return {
    spec: loadStaticFile(resolve('@secadmin/spec/openapi.json'), 'json'),
    reference: loadStaticFile(resolve('@secadmin/docs/index.html'), 'html'),
    favicon: loadStaticFile(resolve('@secadmin/docs/favicon.ico'), 'image/x-icon'),
  };
}

const ASSET_TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/** The console as built: its page and every file under `assets/` (the compressed copies beside). */
export function loadConsoleFiles(): ConsoleFiles {
  const page = createRequire(import.meta.url).resolve('@secadmin/console/index.html');
  const dir = join(dirname(page), 'assets');
  const assets = new Map<string, StaticFile>();
  for (const name of readdirSync(dir)) {
    const type = ASSET_TYPES[extname(name)];
    if (type) assets.set(name, loadStaticFile(join(dir, name), type));
  }
  return { page: loadStaticFile(page, 'html'), assets };
}
