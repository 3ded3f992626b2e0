import type { Clock } from '../domain/clock.ts';
import type { Store } from '../storage/store.ts';
import { AccessChecks } from './access.ts';
import { AccountService } from './account-service.ts';
import { ApiKeyService } from './api-key-service.ts';
import { AuditLogService } from './audit.ts';
import { EnvironmentService } from './environment-service.ts';
import { EvaluationService } from './evaluation-service.ts';
import { FlagService } from './flag-service.ts';
import { FlagdService } from './flagd-service.ts';
import { HealthService } from './health-service.ts';
import { ProjectService } from './project-service.ts';
import { SegmentService } from './segment-service.ts';
import { type SessionOptions, SessionService } from './session-service.ts';
import { SnapshotRegistry } from './snapshots.ts';

/** The use cases routes may call; storage and the snapshots stay behind them. */
export interface Services {
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
  readonly health: HealthService;
}

export interface ServiceOptions {
  readonly sessions?: SessionOptions;
  /** Read by everything that needs the time; tests pass a fake one. */
  readonly clock?: Clock;
  /** This node's evaluation snapshots, when the caller keeps them up to date (main.ts polls them). */
  readonly snapshots?: SnapshotRegistry;
}

/** Wires every use case to one store and one snapshot registry. */
export function createServices(store: Store, options: ServiceOptions = {}): Services {
  const snapshots = options.snapshots ?? new SnapshotRegistry(store);
  const deps = { store, snapshots };
  return {
    projects: new ProjectService(deps),
    environments: new EnvironmentService(deps),
    flags: new FlagService(deps),
    segments: new SegmentService(deps),
    apiKeys: new ApiKeyService(store, { clock: options.clock }),
    access: new AccessChecks(store, snapshots),
    auditLog: new AuditLogService(store),
    evaluation: new EvaluationService(store, snapshots, options.clock),
    flagd: new FlagdService(deps),
    accounts: new AccountService(store),
    sessions: new SessionService(store, { clock: options.clock, ...options.sessions }),
    health: new HealthService(store),
  };
}
