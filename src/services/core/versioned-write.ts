import type { AuditEvent } from '../../domain/audit-event.ts';
import { type Clock, isoTime } from '../../domain/clock.ts';
import { notFound, preconditionFailed } from '../../domain/errors.ts';
import type { AuditStore, WebhookRole } from '../../storage/store.ts';
import type { Actor } from './actor.ts';
import { recordAudit } from './audit.ts';
import { checkIfMatch } from './if-match.ts';
import { uniqueToConflict } from './unique-to-conflict.ts';

// Every versioned write (docs/product.md §4): `If-Match` checked against the stored version before
// the change (if-match.ts), and the optimistic version check of the update itself.
// `writeVersioned` is that recipe written once (docs/decisions/1821); a service says only what differs.

/** The error for an update that lost a race with another writer of the same resource. */
export const changedMeanwhile = (resource: string) =>
  preconditionFailed(`The ${resource} changed while this request ran; read it again and retry.`);

/** What every audited write writes besides the resource: the audit log, and the webhook outbox beside it. */
export type AuditRoles = AuditStore & WebhookRole;

/** A kind of resource as the one write recipe sees it: how it is stored, and named and shown in the audit log. */
export interface VersionedKind<R extends { readonly id: string }, Tx extends AuditRoles> {
  /** The audit log's resource type ('flag', 'change_request'); a lost race's 412 names it in words. */
  readonly type: string;
  /** The resource's key in the audit log; null for those without one. */
  readonly key: (resource: R) => string | null;
  /** The project whose log (and webhooks) the event goes to, null for the organisation's; `deleted` when the write deletes it. */
  readonly logOf: (resource: R, deleted: boolean) => string | null;
  /** The resource another resource's history lists this one's events in (a change request's flag). */
  readonly subjectOf?: (resource: R) => string | null;
  /** The resource as its audit events show it (an account without its password hash); default: as it is. */
  readonly shown?: (resource: R) => unknown;
  readonly insert?: (tx: Tx, resource: R) => Promise<void>;
  /** Writes `next` unless the stored version is no longer `expectedVersion` (then false). */
  readonly update?: (tx: Tx, next: R, expectedVersion: number) => Promise<boolean>;
  /** Deletes it; false when there was nothing left to delete (another delete won). */
  readonly remove?: (tx: Tx, stored: R) => Promise<boolean>;
  /** The 404 of a delete that another delete beat (default: "No <type> with id …"). */
  readonly gone?: (stored: R) => Error;
}

/** What a write makes of the resource, and what its audit event says. */
export interface Outcome<R> {
  /** The resource as written; null deletes it. */
  readonly next: R | null;
  /** The audit event's action; null records none (a sign-in that changed only the account's last sign-in). */
  readonly action: string | null;
  /** The one environment the write touched, for the audit log's filter. */
  readonly environment?: string | undefined;
  readonly details?: Readonly<Record<string, unknown>> | undefined;
  /** What the event shows before and after, where that is not the resource as it was and is. */
  readonly before?: unknown;
  readonly after?: unknown;
}

interface Follows<R> {
  /** More of the write, after its audit event in the same transaction, with the event's time; `deleted` when it deleted. */
  readonly also?: (written: R, at: string, deleted: boolean) => Promise<void>;
}

/** A write that creates the resource: nothing stored to check. */
export interface Creation<R> extends Follows<R> {
  /** The new resource, checked; `taken` is the 409 when its key is another's already. */
  readonly create: () => Promise<Outcome<R> & { readonly next: R; readonly taken?: string }>;
}

/** A write of a stored resource. */
export interface Change<R> extends Follows<R> {
  /** Reads it in the write's transaction (locked where writers must queue); throws the 404 when it is not there. */
  readonly load: () => Promise<R>;
  /** The version the request's `If-Match` names, checked before anything else. */
  readonly ifMatch?: number | undefined;
  /** What the write makes of it: checked and built here, in the transaction, from what `load` read. */
  readonly change: (stored: R) => Promise<Outcome<R>>;
  /** The error when another writer changed it first (default: 412, `changedMeanwhile`). */
  readonly raced?: () => Error;
}

/**
 * The one recipe of a versioned write, in the caller's transaction (which `commitProjectChange`
 * opens for a write evaluations see): read the resource, check `If-Match` against its version,
 * build the change, write it — a taken key is a 409, a lost race a 412 — and record its audit
 * event (with the webhook outbox) in the same transaction. Answers the resource as written, or
 * as it was when the write deletes it.
 */
export async function writeVersioned<
  R extends { readonly id: string; readonly version: number },
  Tx extends AuditRoles,
>(
  tx: Tx,
  actor: Actor,
  clock: Clock,
  kind: VersionedKind<R, Tx>,
  write: Creation<R> | Change<R>,
): Promise<R> {
  const word = kind.type.replaceAll('_', ' ');
  let stored: R | undefined;
  let outcome: Outcome<R>;
  if ('create' in write) {
    const created = await write.create();
    const inserted = method(kind.insert, 'created')(tx, created.next);
    await (created.taken === undefined ? inserted : inserted.catch(uniqueToConflict(created.taken)));
    outcome = created;
  } else {
    stored = await write.load();
    checkIfMatch(write.ifMatch, stored.version);
    outcome = await write.change(stored);
    const { next } = outcome;
    if (next === null) {
      if (!(await method(kind.remove, 'deleted')(tx, stored))) {
        throw kind.gone?.(stored) ?? notFound(`No ${word} with id "${stored.id}".`);
      }
    } else if (!(await method(kind.update, 'updated')(tx, next, stored.version))) {
      throw write.raced?.() ?? changedMeanwhile(word);
    }
  }
  const written = (outcome.next ?? stored) as R;
  const shown = (resource: R | null | undefined) =>
    resource === null || resource === undefined ? null : (kind.shown?.(resource) ?? resource);
  const at = isoTime(clock);
  const deleted = outcome.next === null;
  if (outcome.action !== null) {
    await recordAudit(tx, actor, kind.logOf(written, deleted), {
      at,
      action: outcome.action,
      resource: auditedResource(kind, written),
      ...(outcome.environment === undefined ? {} : { environment: outcome.environment }),
      before: 'before' in outcome ? outcome.before : shown(stored),
      after: 'after' in outcome ? outcome.after : shown(outcome.next),
      ...(outcome.details === undefined ? {} : { details: outcome.details }),
    });
  }
  await write.also?.(written, at, deleted);
  return written;
}

/** A kind's store method for the write asked; a kind not written that way here is a mistake in the code. */
function method<F>(found: F | undefined, how: string): F {
  if (found === undefined) throw new Error(`This kind of resource is not ${how} through writeVersioned.`);
  return found;
}

/** How the audit log names a resource: its type, id and key, and the resource it is about, if any. */
function auditedResource<R extends { readonly id: string }, Tx extends AuditRoles>(
  kind: VersionedKind<R, Tx>,
  resource: R,
): AuditEvent['resource'] {
  const subjectId = kind.subjectOf?.(resource) ?? null;
  return {
    type: kind.type,
    id: resource.id,
    key: kind.key(resource),
    ...(subjectId === null ? {} : { subjectId }),
  };
}
