import type { Request } from 'express';
import { ApiError } from './errors.js';
import { hasBody } from './unread-body.js';

export interface BodyBudgetOptions {
  /** The most bytes of bodies still being received for one principal, all its keys together. */
  perKeyBytes: number;
  /** ...and for the whole process. */
  processBytes: number;
  /** A body that makes no progress for this long is closed. */
  idleMs: number;
}

/** Whether `bytes` more fit under `bound`; a chunked body (0 bytes so far) needs room left. */
const within = (held: number, bytes: number, bound: number) =>
  bytes === 0 ? held < bound : held + bytes <= bound;

/** Bodies in flight finish or are closed within the idle timeout: soon there is room again. */
const RETRY_AFTER_S = 1;

/**
 * Bounds the bytes of request bodies still being received, per owner (the principal of the key
 * that sends them) and for the process, so that
 * half-sent bodies cannot grow the process's memory: a body's declared `Content-Length` is
 * counted before any of it is read (past a bound, the request is refused unread), a chunked
 * body's bytes as they arrive (past a bound, its connection is closed); both until the body is
 * read whole or its request ends. A body that makes no progress for `idleMs` is closed.
 */
export class BodyBudget {
  private total = 0;
  private readonly byOwner = new Map<string, number>();

  constructor(private readonly options: BodyBudgetOptions) {}

  /**
   * Before the body of `req` is read, by the caller, in the same turn: 429 when `owner` would go
   * past its bound, 503 when the process would.
   */
  admit(req: Request, owner: string): void {
    if (!hasBody(req)) return;
    const length = req.headers['content-length'];
    const chunked = length === undefined;
    const declared = chunked ? 0 : Number(length);
    this.check(owner, declared);
    this.add(owner, declared);
    let held = declared;
    const idle = setTimeout(() => req.socket.destroy(), this.options.idleMs);
    const onData = (chunk: Buffer) => {
      idle.refresh();
      if (!chunked) return;
      if (!this.fits(owner, chunk.length)) {
        // Past a bound while it arrives: too late for an answer before the body, so it is cut off.
        req.socket.destroy();
        return;
      }
      this.add(owner, chunk.length);
      held += chunk.length;
    };
    const done = () => {
      clearTimeout(idle);
      req.off('data', onData);
      this.add(owner, -held);
      held = 0;
    };
    req.on('data', onData);
    req.once('end', done);
    req.once('close', done);
  }

  private check(owner: string, bytes: number): void {
    const owned = this.byOwner.get(owner) ?? 0;
    if (!within(owned, bytes, this.options.perKeyBytes))
      throw new ApiError(
        'rate_limited',
        'This principal has too many request bodies in flight; send this one when they are done.',
        undefined,
        RETRY_AFTER_S,
      );
    if (!within(this.total, bytes, this.options.processBytes))
      throw new ApiError(
        'unavailable',
        'The server is receiving too many request bodies; try again shortly.',
        undefined,
        RETRY_AFTER_S,
      );
  }

  private fits(owner: string, bytes: number): boolean {
    return (
      within(this.byOwner.get(owner) ?? 0, bytes, this.options.perKeyBytes) &&
      within(this.total, bytes, this.options.processBytes)
    );
  }

  private add(owner: string, bytes: number): void {
    if (bytes === 0) return;
    this.total += bytes;
    const owned = (this.byOwner.get(owner) ?? 0) + bytes;
    if (owned === 0) this.byOwner.delete(owner);
    else this.byOwner.set(owner, owned);
  }
}
