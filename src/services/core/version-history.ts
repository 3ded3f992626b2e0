import { notFound } from '../../domain/errors.ts';
import type { AuditStore } from '../../storage/store.ts';

/** A resource type whose earlier versions the audit log keeps whole (`after` of each write). */
type Versioned = 'flag' | 'segment';

/**
 * The resource as it was at `version`, from the `after` of the audit event that wrote it (docs/product.md
 * §10 History). Reads the resource's events newest first, a page at a time, until it finds it.
 */
export async function versionFromAudit<T extends { readonly version: number }>(
  store: AuditStore,
  projectId: string,
  type: Versioned,
  id: string,
  version: number,
): Promise<T> {
  let cursor: string | undefined;
  do {
    const page = await store.listAuditEvents(
      projectId,
      { resourceType: type, resourceId: id },
      { limit: 100, cursor },
    );
    for (const event of page.items) {
      const after = event.after as T | null;
      if (after !== null && typeof after === 'object' && after.version === version) return after;
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  throw notFound(`The audit log has no version ${version} of this ${type}.`);
}
