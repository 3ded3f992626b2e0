import type { Store } from '../storage/store.ts';
import { AccessChecks } from './access.ts';
import { AccountService } from './account-service.ts';
import { ApiKeyService } from './api-key-service.ts';
import { AuditLogService } from './audit.ts';
import { ChangeRequestService } from './change-request-service.ts';
import { EnvironmentService } from './environment-service.ts';
import { EvaluationService } from './evaluation-service.ts';
import { FlagService } from './flag-service.ts';
import { FlagdService } from './flagd-service.ts';
import { ProjectService } from './project-service.ts';
import { ScheduledChangeService } from './scheduled-change-service.ts';
import { SegmentService } from './segment-service.ts';
import { type SessionOptions, SessionService } from './session-service.ts';
import { SnapshotRegistry } from './snapshots.ts';

export interface Services {
  readonly store: Store;
  readonly snapshots: SnapshotRegistry;
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
  readonly scheduledChanges: ScheduledChangeService;
  readonly changeRequests: ChangeRequestService;
}

/** Wires every use case to one store and one snapshot registry. */
export function createServices(
  store: Store,
  options: { sessions?: SessionOptions; clock?: () => number } = {},
): Services {
  const snapshots = new SnapshotRegistry(store);
  const deps = { store, snapshots };
  const flags = new FlagService(deps);
  return {
    store,
    snapshots,
    projects: new ProjectService(deps),
    environments: new EnvironmentService(deps),
    flags,
    segments: new SegmentService(deps),
    apiKeys: new ApiKeyService(store, { clock: options.clock }),
    access: new AccessChecks(store),
    auditLog: new AuditLogService(store),
    evaluation: new EvaluationService(store, snapshots),
    flagd: new FlagdService(deps),
    accounts: new AccountService(store),
    sessions: new SessionService(store, options.sessions),
    scheduledChanges: new ScheduledChangeService(store, flags, options.clock),
    changeRequests: new ChangeRequestService(store, flags, options.clock),
  };
}
