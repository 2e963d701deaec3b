import type { Conflict } from '../lib/errors.js';
import { isUniqueViolation } from './connection.js';

/** Runs a write; a unique-constraint violation becomes the given 409, whoever raced it. */
export async function conflictOnDuplicate<T>(
  conflict: () => Conflict,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict();
    throw error;
  }
}
