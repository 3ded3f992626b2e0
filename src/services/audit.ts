import type { AuditEvent } from '../domain/audit-event.ts';
import type { Store } from '../storage/store.ts';
import type { Actor } from './actor.ts';
import { newId } from './ids.ts';

export interface AuditEntry {
  readonly action: string;
  readonly resource: { readonly type: string; readonly id: string; readonly key: string | null };
  readonly environment?: string;
  readonly before: unknown;
  readonly after: unknown;
}

/** Records one audit event; call it inside the write's transaction so both happen or neither. */
export async function recordAudit(
  store: Store,
  actor: Actor,
  projectId: string | null,
  entry: AuditEntry,
): Promise<void> {
  const { principal } = actor;
  const event: AuditEvent = {
    id: newId('evt'),
    at: new Date().toISOString(),
    actor: { type: principal.type, id: principal.id, name: principal.name },
    requestId: actor.requestId,
    ...entry,
  };
  await store.insertAuditEvent(projectId, event);
}
