import type { Connection } from '../../../storage/connection.js';
import type { SigningKeyRow } from './model.js';

/** Any constant: held while the key list is read and changed (registration, rotation). */
const SIGNING_KEYS_LOCK_ID = 7_246_614_223;

const COLUMNS = `fingerprint, public_key AS "publicKey", from_seq::float8 AS "fromSeq",
  previous_key_signature AS "previousKeySignature", new_key_signature AS "newKeySignature",
  created_at AS "createdAt"`;

/** The checkpoint signing keys, oldest first; the last one is active. Plain SQL. */
export class SigningKeysRepository {
  constructor(private readonly c: Connection) {}

  /** Within a transaction: waits until no other registration or rotation is running. */
  async lock(): Promise<void> {
    await this.c.sql('SELECT true AS locked FROM pg_advisory_xact_lock($1::bigint)', [
      SIGNING_KEYS_LOCK_ID,
    ]);
  }

  all(): Promise<SigningKeyRow[]> {
    return this.c.sql(`SELECT ${COLUMNS} FROM signing_keys ORDER BY from_seq`);
  }

  /** The fingerprint of the key that signs from the highest seq, if any is registered. */
  async active(): Promise<string | undefined> {
    const [row] = await this.c.sql<{ fingerprint: string }>(
      'SELECT fingerprint FROM signing_keys ORDER BY from_seq DESC LIMIT 1',
    );
    return row?.fingerprint;
  }

  async add(row: Omit<SigningKeyRow, 'createdAt'>): Promise<void> {
    await this.c.sql(
      `INSERT INTO signing_keys
         (fingerprint, public_key, from_seq, previous_key_signature, new_key_signature)
       VALUES ($1, $2, $3, $4, $5)`,
      [row.fingerprint, row.publicKey, row.fromSeq, row.previousKeySignature, row.newKeySignature],
    );
  }
}
