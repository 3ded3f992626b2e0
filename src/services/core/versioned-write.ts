import { preconditionFailed } from '../../domain/errors.ts';

// Every versioned write (docs/product.md §4): `If-Match` checked against the stored version before
// the change, and the optimistic version check of the update itself.

/** Refuses a request whose `If-Match` names another version than the stored one. */
export function checkIfMatch(ifMatch: number | undefined, version: number): void {
  if (ifMatch !== undefined && ifMatch !== version) {
    throw preconditionFailed(`If-Match names version ${ifMatch}, but the resource is at version ${version}.`);
  }
}

/** The error for an update that lost a race with another writer of the same resource. */
export const changedMeanwhile = (resource: string) =>
  preconditionFailed(`The ${resource} changed while this request ran; read it again and retry.`);
