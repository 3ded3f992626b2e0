import { authorizeOrganisation } from '../../access/access-rules.ts';
import type { AuditEvent } from '../../domain/audit-event.ts';
import { newId } from '../../domain/ids.ts';
import type {
  AuditFilter,
  AuditStore,
  FlagStore,
  Page,
  PageRequest,
  ProjectStore,
  WebhookRole,
} from '../../storage/store.ts';
import { enqueueWebhookDeliveries } from '../../webhooks/outbox.ts';
import type { Actor } from './actor.ts';
import { accessProject } from './project-access.ts';

export interface AuditEntry {
  /** When it happened: the caller's clock, so the time comes from the one injected Clock. */
  readonly at: string;
  readonly action: string;
  readonly resource: { readonly type: string; readonly id: string; readonly key: string | null };
  readonly environment?: string;
  readonly before: unknown;
  readonly after: unknown;
  readonly details?: Readonly<Record<string, unknown>>;
}

/** Records one audit event; call it inside the write's transaction so both happen or neither. */
export async function recordAudit(
  store: AuditStore & WebhookRole,
  actor: Actor,
  projectId: string | null,
  entry: AuditEntry,
): Promise<void> {
  const { principal } = actor;
  const { at, ...described } = entry;
  const event: AuditEvent = {
    id: newId('evt'),
    at,
    actor: { type: principal.type, id: principal.id, name: principal.name },
    requestId: actor.requestId,
    ...described,
    before: withoutSecrets(entry.before),
    after: withoutSecrets(entry.after),
  };
  await store.insertAuditEvent(projectId, event);
  if (projectId !== null) await enqueueWebhookDeliveries(store.webhooks, projectId, event);
}

/** Fields that hold secrets or their hashes; a snapshot of a resource never carries them into the log. */
const SECRET_FIELDS = new Set(['secret', 'secretHash', 'passwordHash', 'tokenHash']);

function withoutSecrets(snapshot: unknown): unknown {
  if (snapshot === null || typeof snapshot !== 'object' || Array.isArray(snapshot)) return snapshot;
  if (!Object.keys(snapshot).some((k) => SECRET_FIELDS.has(k))) return snapshot;
  return Object.fromEntries(Object.entries(snapshot).filter(([k]) => !SECRET_FIELDS.has(k)));
}

/** Reading the audit log: a project's (its admins) or the whole installation's (organisation-wide admins). */
export class AuditLogService {
  readonly #store: AuditStore & ProjectStore & FlagStore;

  constructor(store: AuditStore & ProjectStore & FlagStore) {
    this.#store = store;
  }

  /**
   * `resourceId` names a resource by id or, as people know them, by a flag's or segment's key in
   * the project: the key resolves to their ids (of the `resourceType` asked for). A key the
   * project lacks resolves to nothing, so the list is empty rather than an error.
   */
  async #resolveResource(projectId: string, filter: AuditFilter): Promise<AuditFilter> {
    const named = filter.resourceId;
    if (typeof named !== 'string' || named === '') return { ...filter, withChangeRequests: true };
    const type = filter.resourceType;
    const [flag, segment] = await Promise.all([
      type === undefined || type === 'flag' ? this.#store.findFlagByKey(projectId, named) : undefined,
      type === undefined || type === 'segment' ? this.#store.findSegmentByKey(projectId, named) : undefined,
    ]);
    const ids = [named, flag?.id, segment?.id].filter((id): id is string => id !== undefined);
    return { ...filter, resourceId: ids, withChangeRequests: true };
  }

  /** A project's events, newest first. */
  async listProject(
    actor: Actor,
    projectIdOrKey: string,
    filter: AuditFilter,
    page: PageRequest,
  ): Promise<Page<AuditEvent>> {
    const project = await accessProject(this.#store, actor, projectIdOrKey, 'admin');
    return this.#store.listAuditEvents(project.id, await this.#resolveResource(project.id, filter), page);
  }

  /**
   * Every event of the installation, newest first: projects deleted and organisation-wide keys
   * too; with `project` (key or id), that project's only. A key names a living project; an id
   * that names none may be a deleted project's, whose events stay.
   */
  async listAll(
    actor: Actor,
    filter: AuditFilter,
    page: PageRequest,
    project?: string,
  ): Promise<Page<AuditEvent>> {
    authorizeOrganisation(actor.principal, 'admin');
    if (project === undefined) return this.#store.listAuditEvents(null, filter, page);
    const found = await this.#store.findProject(project);
    if (found === undefined) return this.#store.listAuditEvents(project, filter, page);
    return this.#store.listAuditEvents(found.id, await this.#resolveResource(found.id, filter), page);
  }
}
