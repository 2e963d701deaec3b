import { PreconditionFailed } from './errors.js';

/** A resource whose every change bumps `version`. */
export interface Versioned {
  id: string;
  version: number;
}

/** The strong entity tag of a resource's current version (`updatedAt` has whole seconds). */
export const entityTag = ({ id, version }: Versioned) => `"${id}.${version}"`;

/** Whether a conditional write may go ahead, given the resource's current entity tag. */
export type Precondition = (currentTag: string) => boolean;

/** Checked under the row lock, so that no change slips between the check and the write. */
export function requirePrecondition(
  precondition: Precondition | undefined,
  resource: Versioned,
  what: string,
): void {
  if (precondition && !precondition(entityTag(resource)))
    throw new PreconditionFailed(`The ${what} has changed: If-Match does not match its ETag.`);
}
