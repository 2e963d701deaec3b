import type { RequestActor } from './actor.js';

/** A change a request made, as its audit entry records it. */
export interface Change<Event extends string, Target extends string> {
  event: Event;
  target: { id: string; type: Target };
  /** Facts about the change, beside the actor's principal. */
  metadata?: Record<string, unknown>;
}

/** Records a request's change in the audit log, in the transaction that makes the change. */
export interface AuditTrail<Event extends string, Target extends string> {
  record(actor: RequestActor, change: Change<Event, Target>): Promise<void>;
}
