import type { ChangeRequest, ChangeRequestStatus } from '../domain/change-request.ts';
import type { Page, PageRequest } from './page.ts';

/** Approval policies and change requests (docs/product.md §10); reached as `store.approvals`, in or out of a transaction. */
export interface ApprovalStore {
  /** Approvals each environment of the project requires, by environment key; absent means 0. */
  requiredApprovals(projectId: string): Promise<ReadonlyMap<string, number>>;
  setRequiredApprovals(environmentId: string, count: number): Promise<void>;

  insertChangeRequest(request: ChangeRequest): Promise<void>;
  findChangeRequest(id: string): Promise<ChangeRequest | undefined>;
  /** A project's requests, newest first, optionally of one status and one flag. */
  listChangeRequests(
    projectId: string,
    filter: { readonly status?: ChangeRequestStatus | undefined; readonly flagId?: string | undefined },
    page: PageRequest,
  ): Promise<Page<ChangeRequest>>;
  /** Writes the request unless its stored version is no longer `expectedVersion` (then false). */
  updateChangeRequest(request: ChangeRequest, expectedVersion: number): Promise<boolean>;
}
