import type { Store } from '../storage/store.ts';
import { AccessChecks } from './access.ts';
import { AccountService } from './account-service.ts';
import { ApiKeyService } from './api-key-service.ts';
import { AuditLogService } from './audit.ts';
import { EnvironmentService } from './environment-service.ts';
import { EvaluationService } from './evaluation-service.ts';
import { FlagService } from './flag-service.ts';
import { FlagdService } from './flagd-service.ts';
import { NodeSync } from './node-sync.ts';
import { ProjectService } from './project-service.ts';
import { SegmentService } from './segment-service.ts';
import { type SessionOptions, SessionService } from './session-service.ts';
import { SnapshotRegistry } from './snapshots.ts';

export interface Services {
  readonly store: Store;
  readonly snapshots: SnapshotRegistry;
  /** Follows the change feed once started (main.ts); /readyz reports its state. */
  readonly sync: NodeSync;
  readonly projects: ProjectService;
  readonly environments: EnvironmentService;
  readonly flags: FlagService;
  readonly segments: SegmentService;
  readonly apiKeys: ApiKeyService;
  readonly access: AccessChecks;
  readonly auditLog: AuditLogService;
  readonly evaluation: EvaluationService;
  readonly flagd: FlagdService;
  readonly accounts: AccountService;
  readonly sessions: SessionService;
}

/** Wires every use case to one store and one snapshot registry. */
export function createServices(
  store: Store,
  options: { sessions?: SessionOptions; clock?: () => number } = {},
): Services {
  const snapshots = new SnapshotRegistry(store);
  const apiKeys = new ApiKeyService(store, { clock: options.clock });
  const deps = { store, snapshots, keys: apiKeys.registry };
  return {
    store,
    snapshots,
    sync: new NodeSync(snapshots, apiKeys.registry),
    projects: new ProjectService(deps),
    environments: new EnvironmentService(deps),
    flags: new FlagService(deps),
    segments: new SegmentService(deps),
    apiKeys,
    access: new AccessChecks(store, (reference) => snapshots.projectIdFor(reference)),
    auditLog: new AuditLogService(store),
    evaluation: new EvaluationService(store, snapshots),
    flagd: new FlagdService(deps),
    accounts: new AccountService(store),
    sessions: new SessionService(store, options.sessions),
  };
}
