import { conflict } from '../../domain/errors.ts';

/** Turns a storage uniqueness failure into the 409 a person understands. */
export function uniqueToConflict(detail: string) {
  return (error: unknown): never => {
    if ((error as Error)?.name === 'UniqueViolation') throw conflict(detail);
    throw error;
  };
}
