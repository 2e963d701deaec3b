// The ClickHouse HTTP test server's own process (see ./index.ts): ClickHouse's engine in chdb, on
// the data directory its parent names, answering on a spare port of 127.0.0.1. chdb allows one
// data directory per process, and the process under test may embed a chdb of its own.

import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { drainPending, Session } from 'chdb';
import {
  authenticationFailed,
  credentials,
  errorResponse,
  identifier,
  outputFormat,
  parseRequest,
  setStatement,
} from './protocol.js';

/**
 * What the parent sends first.
 *
 * @typedef {object} ServerConfig
 * @property {string} dataDir
 * @property {string} user
 * @property {string} password
 */

/**
 * Each request runs in a session of its own, as ClickHouse runs a request without session_id:
 * its database and settings, and any SET or USE it sends, end with it. chdb runs the sessions of
 * one data directory on one engine, which `engine`'s session keeps up between requests.
 *
 * @param {string} dataDir
 * @param {import('./protocol.js').ClickHouseRequest} request
 */
async function execute(dataDir, request) {
  const session = new Session(dataDir);
  try {
    const setup = [
      request.database !== null && `USE ${identifier(request.database)}`,
      request.settings.length > 0 && setStatement(request.settings),
    ].filter(Boolean);
    if (setup.length > 0) await session.queryBindAsync(setup.join('; '), {});
    return await session.queryBindAsync(request.sql, request.params, {
      format: request.defaultFormat,
    });
  } finally {
    session.close();
  }
}

/**
 * @param {ServerConfig} config
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 */
async function answer(config, req, res) {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (url.pathname === '/ping') {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8' }).end('Ok.\n');
    return;
  }
  const queryId = url.searchParams.get('query_id') || randomUUID();
  try {
    const { user, password } = credentials(url.searchParams, req.headers);
    if (user !== config.user || password !== config.password) throw authenticationFailed(user);
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const request = parseRequest(url, req.headers, Buffer.concat(chunks).toString('utf8'));
    const result = await execute(config.dataDir, request);
    const format = outputFormat(request.sql, request.defaultFormat);
    res.writeHead(200, {
      'Content-Type': `${format.startsWith('JSON') ? 'application/json' : 'text/plain'}; charset=UTF-8`,
      'X-ClickHouse-Query-Id': queryId,
      'X-ClickHouse-Format': format,
      // What chdb reports of a query: its result and its time, not the rows it read or wrote.
      'X-ClickHouse-Summary': JSON.stringify({
        result_rows: String(result.rowsRead),
        result_bytes: String(result.bytesRead),
        elapsed_ns: String(Math.round(result.elapsed * 1e9)),
      }),
    });
    res.end(result.bytes());
  } catch (error) {
    const { status, code, text } = errorResponse(error);
    res.writeHead(status, {
      'Content-Type': 'text/plain; charset=UTF-8',
      'X-ClickHouse-Query-Id': queryId,
      'X-ClickHouse-Exception-Code': String(code),
    });
    res.end(`${text}\n`);
  }
}

/** @param {ServerConfig} config */
async function serve(config) {
  const engine = new Session(config.dataDir);
  await engine.queryBindAsync('SELECT 1', {});
  const server = createServer((req, res) => {
    answer(config, req, res).catch(() => res.destroy());
  });

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    server.close();
    server.closeAllConnections();
    await drainPending();
    engine.close();
    rmSync(config.dataDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  // The channel closes when the parent ends, however it ends: no server outlives it.
  process.on('disconnect', stop);
  if (!process.connected) await stop();

  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address && typeof address === 'object') process.send?.({ port: address.port });
  });
}

if (!process.send) throw new Error('started without an IPC channel: use startClickHouseHttp()');
const exitWithParent = () => process.exit(0);
process.on('disconnect', exitWithParent);
process.once('message', (config) => {
  process.off('disconnect', exitWithParent);
  serve(/** @type {ServerConfig} */ (config)).catch((error) => {
    console.error(error);
    process.exit(1);
  });
});
