import pg from 'pg';

/** What the subclass reaches of node-postgres's client beyond its declared types. */
interface ClientInternals {
  connection: { stream: { destroy(error: Error): void } };
  saslSession: unknown;
  _connecting: boolean;
  _handleAuthSASLFinal(msg: unknown): void;
  _handleReadyForQuery(msg: unknown): void;
}

/**
 * The client of every connection to the embedded server. Whenever its postmaster is down (a
 * crash, a restart, before the first bind), any local user may listen on its 127.0.0.1 port: a
 * listener asking for a cleartext or MD5 password would get the password or a hash to crack.
 * SCRAM-SHA-256, the only method the cluster allows, never reveals it and makes the server prove
 * it holds the password's verifier; a server that asks for anything else, or lets the client in
 * without that proof, is left with an error.
 */
export class ScramOnlyClient extends pg.Client {
  #serverProved = false;

  _handleAuthCleartextPassword(): void {
    this.#refuse('asked for a cleartext password');
  }

  _handleAuthMD5Password(): void {
    this.#refuse('asked for an MD5 password');
  }

  _handleAuthSASLFinal(msg: unknown): void {
    const base = pg.Client.prototype as unknown as ClientInternals;
    base._handleAuthSASLFinal.call(this, msg);
    // node-postgres clears the session once the server's signature checked out.
    this.#serverProved = (this as unknown as ClientInternals).saslSession === null;
  }

  _handleReadyForQuery(msg: unknown): void {
    if ((this as unknown as ClientInternals)._connecting && !this.#serverProved) {
      this.#refuse('let the client in without SCRAM-SHA-256');
      return;
    }
    (pg.Client.prototype as unknown as ClientInternals)._handleReadyForQuery.call(this, msg);
  }

  #refuse(what: string): void {
    (this as unknown as ClientInternals).connection.stream.destroy(
      new Error(`the server ${what}; only SCRAM-SHA-256 is used with the embedded PostgreSQL`),
    );
  }
}
