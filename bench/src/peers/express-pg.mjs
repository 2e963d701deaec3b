// The fair peer of GET /v1/users/{id}: Express 5 reading the same row by its primary key with
// `pg` (a pool of 10, as secadmin's), behind an API-key check whose lookup is cached in memory
// (the secret's SHA-256, compared in constant time), answering the user as the API shows it.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import express from 'express';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
/** SHA-256 of the one key this peer knows: the cached lookup. */
const known = createHash('sha256').update(String(process.env.API_KEY)).digest();
const isoSeconds = (/** @type {Date} */ date) => `${date.toISOString().slice(0, 19)}Z`;

const app = express();
app.disable('x-powered-by');
app.get('/v1/users/:id', async (req, res) => {
  const secret = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1] ?? '';
  const presented = createHash('sha256').update(secret).digest();
  if (!timingSafeEqual(presented, known)) {
    res.status(401).json({ error: { code: 'unauthorized', message: 'Unknown API key.' } });
    return;
  }
  const { rows } = await pool.query(
    `SELECT id, email, name, email_verified, active, external_id, roles, metadata, created_at,
       updated_at FROM users WHERE id = $1`,
    [req.params.id],
  );
  const row = rows[0];
  if (!row) {
    res.status(404).json({ error: { code: 'not_found', message: 'No such user.' } });
    return;
  }
  res.json({
    data: {
      id: row.id,
      email: row.email,
      name: row.name,
      emailVerified: row.email_verified,
      active: row.active,
      ...(row.external_id !== null ? { externalId: row.external_id } : {}),
      roles: row.roles,
      metadata: row.metadata,
      createdAt: isoSeconds(row.created_at),
      updatedAt: isoSeconds(row.updated_at),
    },
    meta: { requestId: `req_${randomBytes(13).toString('hex')}` },
  });
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
