/**
 * What went wrong, in the domain's words: services and their helpers throw these, and know
 * nothing of HTTP (storage/ turns a database that cannot be reached into `Unavailable`).
 * `http/errors.ts` maps each onto a status and the error envelope.
 */
export abstract class DomainError extends Error {}

/** A field of the input, by its path relative to the input (`metadata`, `entries[3].timestamp`). */
export interface FieldProblem {
  field: string;
  message: string;
  /** Where in the field's text the problem is: a 1-based position in Unicode code points. */
  position?: number;
}

export class Invalid extends DomainError {
  constructor(
    readonly problems: FieldProblem[],
    message = 'The request is invalid.',
    /** What kind of 400 it is in SCIM's words (RFC 7644 §3.12), where SCIM answers it. */
    readonly scimType?: ScimErrorType,
  ) {
    super(message);
  }
}

export type ScimErrorType =
  | 'invalidFilter'
  | 'invalidValue'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'mutability';

export const invalid = (field: string, message: string) => new Invalid([{ field, message }]);

export class NotFound extends DomainError {
  constructor(what: string, message = `No ${what} with this id.`) {
    super(message);
  }
}

export class Conflict extends DomainError {}

export class Forbidden extends DomainError {}

/** Something that existed and is gone for good (an expired download). */
export class Gone extends DomainError {}

/** Too much at once for this caller; it may try again after `retryAfterSeconds`. */
export class Throttled extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** A dependency is down; the request may be retried. */
export class Unavailable extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds = 1,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** A write made on a condition (`If-Match`) that the resource's current version does not meet. */
export class PreconditionFailed extends DomainError {}

/** An idempotency key sent again with a different request. */
export class IdempotencyKeyReused extends DomainError {}
