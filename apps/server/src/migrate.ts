import { openDatabase } from '@secadmin/db';
import { loadConfig } from './config.js';

/** `pnpm db:migrate`: applies pending migrations and exits (the server also does this at start). */
const config = loadConfig();
const db = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
try {
  const applied = await db.migrate();
  console.log(applied.length === 0 ? 'Database is up to date.' : `Applied: ${applied.join(', ')}`);
} finally {
  await db.close();
}
