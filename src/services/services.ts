import { type Clock, systemClock } from '../domain/clock.ts';
import type { RunningExperiments } from '../domain/exposure.ts';
import type { OidcSettings } from '../domain/oidc-issuer.ts';
import { KeyRevocations } from '../plane/key-revocations.ts';
import { NodeSync } from '../plane/node-sync.ts';
import type { ProjectChanges } from '../plane/project-changes.ts';
import { SnapshotRegistry } from '../plane/snapshots.ts';
import type { Store } from '../storage/store.ts';
import { ApiKeyService } from './access/api-key-service.ts';
import { AccountService } from './accounts/account-service.ts';
import { PasswordService } from './accounts/password-service.ts';
import { ProvisioningService } from './accounts/provisioning-service.ts';
import { type SessionOptions, SessionService } from './accounts/session-service.ts';
import { SsoService } from './accounts/sso-service.ts';
import { AccessChecks } from './core/access.ts';
import { AuditLogService } from './core/audit.ts';
import { FlagService } from './flags/flag-service.ts';
import { FlagdService } from './flags/flagd-service.ts';
import { SegmentService } from './flags/segment-service.ts';
import { ChangeRequestService } from './governance/change-request-service.ts';
import { ScheduledChangeService } from './governance/scheduled-change-service.ts';
import { EventService } from './measurement/event-service.ts';
import { ExposureService } from './measurement/exposure-service.ts';
import { MetricService } from './measurement/metric-service.ts';
import { EnvironmentService } from './projects/environment-service.ts';
import { ProjectService } from './projects/project-service.ts';
import { WebhookService } from './projects/webhook-service.ts';
import { EvaluationService } from './serving/evaluation-service.ts';
import { HealthService } from './serving/health-service.ts';
import { InsightsService } from './serving/insights-service.ts';

/** The use cases routes may call; storage and the snapshots stay behind them. */
export interface Services {
  /** The one clock every service reads; routes and streams read it here too. */
  readonly clock: Clock;
  /** Every change this node's snapshots take on, for the real-time streams to subscribe to. */
  readonly changes: ProjectChanges;
  /** Revoked keys, announced to their open streams. */
  readonly revocations: KeyRevocations;
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
  readonly passwords: PasswordService;
  /** Single sign-on through the organisation's OpenID provider; undefined when not configured. */
  readonly sso: SsoService | undefined;
  /** Accounts as the identity provider manages them over SCIM. */
  readonly provisioning: ProvisioningService;
  readonly health: HealthService;
  readonly insights: InsightsService;
  /** Tracking events in (POST /v1/events). */
  readonly events: EventService;
  /** Exposures of units to running experiments, counted from evaluations and `$exposure` events. */
  readonly exposures: ExposureService;
  /** Metric definitions per project. */
  readonly metrics: MetricService;
  readonly webhooks: WebhookService;
  readonly scheduledChanges: ScheduledChangeService;
  readonly changeRequests: ChangeRequestService;
  /** Keeps the snapshots and keys in step with the database once started (main.ts; decision 0204). */
  readonly sync: NodeSync;
}

export interface ServiceOptions {
  readonly sessions?: SessionOptions;
  /** Read by everything that needs the time; tests pass a fake one. */
  readonly clock?: Clock;
  /** This node's evaluation snapshots, when the caller keeps them up to date (main.ts polls them). */
  readonly snapshots?: SnapshotRegistry;
  /** false: evaluations are not counted for insights (FLAGSTAFF_INSIGHTS=off). */
  readonly insights?: boolean;
  /** FLAGSTAFF_WEBHOOK_ALLOW_PRIVATE: webhooks may be registered for private addresses. */
  readonly webhooksAllowPrivate?: boolean;
  /** FLAGSTAFF_OIDC_*: single sign-on (decision 1720). */
  readonly sso?: OidcSettings | undefined;
  /** FLAGSTAFF_PASSWORD_SIGN_IN=off: false. */
  readonly passwordSignIn?: boolean;
  /** Which running experiment covers a flag (the experiments part); default none. */
  readonly experiments?: RunningExperiments;
  /** FLAGSTAFF_EVENT_RETENTION_DAYS; default 90. */
  readonly eventRetentionDays?: number;
  /** Event batches a node holds at once before it answers 503; default 16. */
  readonly eventBatchesInFlight?: number;
}

/** Wires every use case to one store and one snapshot registry. */
export function createServices(store: Store, options: ServiceOptions = {}): Services {
  const clock = options.clock ?? systemClock;
  const snapshots = options.snapshots ?? new SnapshotRegistry(store, clock);
  const revocations = new KeyRevocations();
  const apiKeys = new ApiKeyService(store, { clock, revocations });
  const deps = { store, snapshots, clock, keys: apiKeys.registry };
  const sync = new NodeSync(snapshots, apiKeys.registry);
  const insights = new InsightsService(store, { clock, enabled: options.insights });
  const flags = new FlagService(deps);
  const segments = new SegmentService(deps);
  const flagd = new FlagdService(deps);
  const scheduledChanges = new ScheduledChangeService(store, flags, clock);
  const evaluation = new EvaluationService(store, snapshots, clock);
  // Insights count every evaluation served, as one of its observers (docs/decisions/1772).
  if (insights.counter !== null) evaluation.observe(insights.counter);
  // Exposures too: single evaluations of a flag under a running experiment (SPEC §13).
  const exposures = new ExposureService(store, options.experiments);
  evaluation.observe(exposures.counter);
  const events = new EventService(store, exposures, {
    clock,
    retentionDays: options.eventRetentionDays,
    batchesInFlight: options.eventBatchesInFlight,
  });
  const sessions = new SessionService(store, {
    clock,
    passwordSignIn: options.passwordSignIn,
    ssoLabel: options.sso?.label,
    ...options.sessions,
  });
  return {
    clock,
    changes: snapshots,
    revocations,
    projects: new ProjectService(deps),
    environments: new EnvironmentService(deps),
    flags,
    segments,
    apiKeys,
    access: new AccessChecks(store, snapshots),
    auditLog: new AuditLogService(store),
    evaluation,
    flagd,
    accounts: new AccountService(store, clock),
    sessions,
    passwords: new PasswordService(store, sessions, options.sessions?.clock ?? clock),
    sso: options.sso && new SsoService(store, options.sso, clock),
    provisioning: new ProvisioningService(store, clock),
    insights,
    events,
    exposures,
    metrics: new MetricService(store, clock),
    health: new HealthService(store, sync),
    sync,
    webhooks: new WebhookService(store, { allowPrivate: options.webhooksAllowPrivate, clock }),
    scheduledChanges,
    changeRequests: new ChangeRequestService(store, { flags, segments, flagd, scheduledChanges }, clock),
  };
}
