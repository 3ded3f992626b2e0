import { KeyRevocations } from '../realtime/key-revocations.ts';
import type { ProjectChanges } from '../realtime/project-changes.ts';
import { SseStreams } from '../realtime/sse-streams.ts';
import { StreamAccess } from '../realtime/stream-access.ts';
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
import { InsightsService } from './insights-service.ts';
import { NodeSync } from './node-sync.ts';
import { ProjectService } from './project-service.ts';
import { SegmentService } from './segment-service.ts';
import { type SessionOptions, SessionService } from './session-service.ts';
import { SnapshotRegistry } from './snapshots.ts';

/** The use cases routes may call; storage and the snapshots stay behind them. */
export interface Services {
  /** Every change this node's snapshots take on, for the real-time streams to subscribe to. */
  readonly changes: ProjectChanges;
  /** Revoked keys, announced to their open streams. */
  readonly revocations: KeyRevocations;
  /** Signed URLs for streams whose clients cannot send headers (OFREP SSE). */
  readonly streamAccess: StreamAccess;
  /** This node's open OFREP event streams. */
  readonly eventStreams: SseStreams;
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
  readonly insights: InsightsService;
  /** Keeps the snapshots and keys in step with the database once started (main.ts; decision 0204). */
  readonly sync: NodeSync;
}

export interface ServiceOptions {
  readonly sessions?: SessionOptions;
  readonly clock?: () => number;
  /** This node's evaluation snapshots, when the caller keeps a reference to them (main.ts). */
  readonly snapshots?: SnapshotRegistry;
  /** false: evaluations are not counted for insights (FLAGSTAFF_INSIGHTS=off). */
  readonly insights?: boolean;
}

/** Wires every use case to one store and one snapshot registry. */
export function createServices(store: Store, options: ServiceOptions = {}): Services {
  const snapshots = options.snapshots ?? new SnapshotRegistry(store);
  const revocations = new KeyRevocations();
  const apiKeys = new ApiKeyService(store, { clock: options.clock, revocations });
  const deps = { store, snapshots, keys: apiKeys.registry };
  const sync = new NodeSync(snapshots, apiKeys.registry);
  const insights = new InsightsService(store, { clock: options.clock, enabled: options.insights });
  return {
    changes: snapshots,
    revocations,
    streamAccess: new StreamAccess(store, options.clock),
    eventStreams: new SseStreams(snapshots, revocations),
    projects: new ProjectService(deps),
    environments: new EnvironmentService(deps),
    flags: new FlagService(deps),
    segments: new SegmentService(deps),
    apiKeys,
    access: new AccessChecks(store, (reference) => snapshots.projectIdFor(reference)),
    auditLog: new AuditLogService(store),
    evaluation: new EvaluationService(store, snapshots, insights.counter),
    flagd: new FlagdService(deps),
    accounts: new AccountService(store),
    sessions: new SessionService(store, options.sessions),
    insights,
    health: new HealthService(store, sync),
    sync,
  };
}
