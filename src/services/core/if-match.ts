import { preconditionFailed } from '../../domain/errors.ts';

// The version a write request names (`If-Match`, docs/product.md §4): checked against the stored
// one before anything is written, by `writeVersioned` in the write's transaction and, where a
// request is checked before it passes the approval gate or slow work, before that too.

/** What a write request may name beside its body: the version it was made against (`If-Match`). */
export interface IfMatch {
  readonly ifMatch?: number | undefined;
}

/** Refuses a request whose `If-Match` names another version than the stored one. */
export function checkIfMatch(ifMatch: number | undefined, version: number): void {
  if (ifMatch !== undefined && ifMatch !== version) {
    throw preconditionFailed(`If-Match names version ${ifMatch}, but the resource is at version ${version}.`);
  }
}
