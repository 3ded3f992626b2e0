import type { Page, PageRequest } from '../domain/page.ts';

/**
 * The rows of a kind of resource keyed in its project and versioned (metrics, experiments,
 * release templates): read by key, listed in key order, written with their audit event in its
 * transaction.
 */
export interface ProjectKeyedStore<T> {
  /** A project's resources in key order. */
  list(projectId: string, page: PageRequest): Promise<Page<T>>;
  findByKey(projectId: string, key: string): Promise<T | undefined>;
  /** Throws UniqueViolation when the key is taken in the project. */
  insert(resource: T): Promise<void>;
  /** Writes it unless the stored version is no longer `expectedVersion` (then false). */
  update(resource: T, expectedVersion: number): Promise<boolean>;
  /** False when there was nothing to delete. */
  delete(id: string): Promise<boolean>;
}
