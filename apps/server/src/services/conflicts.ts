import type { ApiError } from '../http/errors.js';
import { isUniqueViolation } from '../repositories/db.js';

/** Runs a write; a unique-constraint violation becomes the given 409, whoever raced it. */
export async function conflictOnDuplicate<T>(
  conflict: () => ApiError,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict();
    throw error;
  }
}
