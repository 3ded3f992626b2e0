import type { ApiKeyAuthentication } from '../access/api-key-authentication.ts';
import { type Clock, systemClock } from '../domain/clock.ts';
import type { RunningExperiments } from '../domain/exposure.ts';
import type { OidcSettings } from '../domain/oidc-issuer.ts';
import { processServerSecret, type ServerSecret } from '../domain/server-secret.ts';
import type { KeyRegistry } from '../plane/key-registry.ts';
import type { KeyRevocations } from '../plane/key-revocations.ts';
import type { NodeSync } from '../plane/node-sync.ts';
import type { SnapshotRegistry } from '../plane/snapshots.ts';
import type { Store } from '../storage/store.ts';
import { ApiKeyService } from './access/api-key-service.ts';
import { AccountService } from './accounts/account-service.ts';
import { GroupProvisioningService } from './accounts/group-provisioning-service.ts';
import { PasswordService } from './accounts/password-service.ts';
import { ProvisioningService } from './accounts/provisioning-service.ts';
import { type SessionOptions, SessionService } from './accounts/session-service.ts';
import { SsoService } from './accounts/sso-service.ts';
import { AuditLogService } from './core/audit.ts';
import { CodeReferenceService } from './flags/code-reference-service.ts';
import { FlagService } from './flags/flag-service.ts';
import { FlagWrites } from './flags/flag-writes.ts';
import { FlagdService } from './flags/flagd-service.ts';
import { FlagdWrites } from './flags/flagd-writes.ts';
import { SegmentService } from './flags/segment-service.ts';
import { SegmentWrites } from './flags/segment-writes.ts';
import { ChangeRequestService } from './governance/change-request-service.ts';
import { ScheduledChangeService } from './governance/scheduled-change-service.ts';
import { AggregateComparisonStatistics } from './measurement/aggregate-statistics.ts';
import type { ComparisonStatistics } from './measurement/comparison-statistics.ts';
import { EventService } from './measurement/event-service.ts';
import { ExperimentResultsService } from './measurement/experiment-results.ts';
import { ExperimentService } from './measurement/experiment-service.ts';
import { ExposureService } from './measurement/exposure-service.ts';
import { MetricService } from './measurement/metric-service.ts';
import { EnvironmentService } from './projects/environment-service.ts';
import { ProjectService } from './projects/project-service.ts';
import { WebhookService } from './projects/webhook-service.ts';
import type { PrometheusQueries } from './releases/prometheus-client.ts';
import { ReleasePlanService } from './releases/release-plan-service.ts';
import { ReleaseTemplateService } from './releases/release-template-service.ts';
import { EdgeUpstreamService } from './serving/edge-upstream.ts';
import { EvaluationService } from './serving/evaluation-service.ts';
import { HealthService } from './serving/health-service.ts';
import { InsightsService } from './serving/insights-service.ts';

/** The use cases routes may call; storage and the snapshots stay behind them. */
export interface Services {
  /** The one clock every service reads; routes and streams read it here too. */
  readonly clock: Clock;
  readonly projects: ProjectService;
  readonly environments: EnvironmentService;
  readonly flags: FlagService;
  readonly segments: SegmentService;
  readonly apiKeys: ApiKeyService;
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
  /** Groups as the identity provider pushes them over SCIM, mapped to roles by FLAGSTAFF_OIDC_ROLES. */
  readonly provisionedGroups: GroupProvisioningService;
  readonly health: HealthService;
  /** What edges following this node read and forward (SPEC §14). */
  readonly edgeUpstream: EdgeUpstreamService;
  readonly insights: InsightsService;
  /** Tracking events in (POST /v1/events). */
  readonly events: EventService;
  /** Exposures of units to running experiments, counted from evaluations and `$exposure` events. */
  readonly exposures: ExposureService;
  /** Metric definitions per project. */
  readonly metrics: MetricService;
  /** Where repositories name a project's flags, as `flagstaff refs` reports them. */
  readonly codeReferences: CodeReferenceService;
  /** Experiments per project: set up, started and stopped through the gate, and their results. */
  readonly experiments: ExperimentService;
  /** Experiments' results, from the per-unit aggregates. */
  readonly experimentResults: ExperimentResultsService;
  /** Per-variant statistics of a measured comparison (experiments, release plans' guards). */
  readonly comparisonStatistics: ComparisonStatistics;
  readonly webhooks: WebhookService;
  readonly scheduledChanges: ScheduledChangeService;
  readonly changeRequests: ChangeRequestService;
  /** Release plans of flags, their steps and guards (SPEC §13). */
  readonly releases: ReleasePlanService;
  readonly releaseTemplates: ReleaseTemplateService;
  /** FLAGSTAFF_PROMETHEUS_URL's query API, for Prometheus guards; undefined when not set. */
  readonly prometheus: PrometheusQueries | undefined;
  /** Derives sync credentials and stream-token keys, seals webhook secrets (docs/decisions/1880). */
  readonly serverSecret: ServerSecret;
}

export interface ServiceOptions {
  readonly sessions?: SessionOptions;
  /** Read by everything that needs the time; tests pass a fake one. */
  readonly clock?: Clock;
  /** false: evaluations are not counted for insights (FLAGSTAFF_INSIGHTS=off). */
  readonly insights?: boolean;
  /** FLAGSTAFF_WEBHOOK_ALLOW_PRIVATE: webhooks may be registered for private addresses. */
  readonly webhooksAllowPrivate?: boolean;
  /** FLAGSTAFF_PUBLIC_URL: the dashboard's origin, for the links of Slack messages; unset, they have none. */
  readonly publicUrl?: string | undefined;
  /** FLAGSTAFF_OIDC_*: single sign-on (decision 1720). */
  readonly sso?: OidcSettings | undefined;
  /** FLAGSTAFF_PASSWORD_SIGN_IN=off: false. */
  readonly passwordSignIn?: boolean;
  /** FLAGSTAFF_SECRET_KEY or the key file (main.ts); unset, a secret made for this process only. */
  readonly serverSecret?: ServerSecret;
  /** Which running experiment covers a flag (the experiments part); default none. */
  readonly experiments?: RunningExperiments;
  /** FLAGSTAFF_EVENT_RETENTION_DAYS; default 90. */
  readonly eventRetentionDays?: number;
  /** Event batches a node holds at once before it answers 503; default 16. */
  readonly eventBatchesInFlight?: number;
  /** FLAGSTAFF_PROMETHEUS_URL's query API, which Prometheus guards read. */
  readonly prometheus?: PrometheusQueries;
  /** Per-variant statistics that experiments and metric guards read; default: the per-unit aggregates (decision 1941). */
  readonly comparisonStatistics?: ComparisonStatistics;
}

/** What the use cases read and keep up to date beside the store: the node's plane and its key authentication. */
export interface ServiceSources {
  readonly snapshots: SnapshotRegistry;
  readonly keys: KeyRegistry;
  readonly revocations: KeyRevocations;
  /** For /readyz: whether the node is loaded and the database answers. */
  readonly sync?: NodeSync;
  readonly authentication: ApiKeyAuthentication;
  /** The node's running experiments, read again once a start or stop is written here. */
  readonly runningExperiments?: { refresh(): Promise<void> };
}

/** What every group of use cases is built from: the store, the node's sources, the options, and what they resolve to. */
interface Building {
  readonly store: Store;
  readonly sources: ServiceSources;
  readonly options: ServiceOptions;
  readonly clock: Clock;
  readonly serverSecret: ServerSecret;
  /** What the project, flag and segment use cases share. */
  readonly deps: { store: Store; snapshots: SnapshotRegistry; clock: Clock; keys: KeyRegistry };
}

/** Builds every use case over one store and the node's plane; consumers and the plane are built by the caller. */
export function createServices(
  store: Store,
  sources: ServiceSources,
  options: ServiceOptions = {},
): Services {
  const clock = options.clock ?? systemClock;
  const serverSecret = options.serverSecret ?? processServerSecret();
  const deps = { store, snapshots: sources.snapshots, clock, keys: sources.keys };
  const building: Building = { store, sources, options, clock, serverSecret, deps };
  const measurement = measurementServices(building);
  return {
    clock,
    projects: new ProjectService(deps),
    environments: new EnvironmentService(deps),
    auditLog: new AuditLogService(store),
    evaluation: new EvaluationService(store, sources.snapshots, clock),
    ...accessServices(building),
    ...measurement,
    ...flagServices(building, measurement.experiments),
    health: new HealthService(store, sources.sync),
    edgeUpstream: new EdgeUpstreamService(store, sources),
    webhooks: new WebhookService(store, {
      allowPrivate: options.webhooksAllowPrivate,
      clock,
      serverSecret,
      dashboard: options.publicUrl,
    }),
    prometheus: options.prometheus,
    serverSecret,
  };
}

/** Who may act: API keys, accounts and their sessions, passwords, single sign-on and provisioning. */
function accessServices({ store, sources, options, clock, serverSecret }: Building) {
  const sessions = new SessionService(store, {
    clock,
    passwordSignIn: options.passwordSignIn,
    ssoLabel: options.sso?.label,
    ...options.sessions,
  });
  return {
    apiKeys: new ApiKeyService(store, {
      clock,
      revocations: sources.revocations,
      registry: sources.keys,
      authentication: sources.authentication,
      serverSecret,
    }),
    accounts: new AccountService(store, clock),
    sessions,
    passwords: new PasswordService(store, sessions, options.sessions?.clock ?? clock),
    sso: options.sso && new SsoService(store, options.sso, clock),
    provisioning: new ProvisioningService(store, clock),
    provisionedGroups: new GroupProvisioningService(store, clock, options.sso?.roles ?? []),
  };
}

/** What is measured: insights, events and exposures, metrics, experiments and their results, code references. */
function measurementServices({ store, sources, options, clock }: Building) {
  const exposures = new ExposureService(store, options.experiments);
  return {
    insights: new InsightsService(store, { clock, enabled: options.insights }),
    events: new EventService(store, exposures, {
      clock,
      retentionDays: options.eventRetentionDays,
      batchesInFlight: options.eventBatchesInFlight,
    }),
    exposures,
    metrics: new MetricService(store, clock),
    codeReferences: new CodeReferenceService(store, clock),
    experiments: new ExperimentService({
      store,
      snapshots: sources.snapshots,
      clock,
      comparisons: options.experiments,
      changed: () => sources.runningExperiments?.refresh() ?? Promise.resolve(),
    }),
    experimentResults: new ExperimentResultsService(store),
    comparisonStatistics: options.comparisonStatistics ?? new AggregateComparisonStatistics(store.aggregates),
  };
}

/** What changes evaluation: flags, segments, flagd documents, release plans, and the governance that applies them. */
function flagServices({ store, options, clock, deps }: Building, experiments: ExperimentService) {
  const flags = new FlagService(deps);
  // The write pipelines that governance applies approved and scheduled changes through: not in Services.
  const flagWrites = new FlagWrites(deps);
  const releases = new ReleasePlanService({ store, clock, prometheus: options.prometheus }, flagWrites);
  // A plan's steps are scheduled changes the scheduler runs as the plan.
  const scheduledChanges = new ScheduledChangeService(deps, flags, flagWrites, releases);
  return {
    flags,
    segments: new SegmentService(deps),
    flagd: new FlagdService(deps),
    scheduledChanges,
    changeRequests: new ChangeRequestService(
      store,
      {
        flags: flagWrites,
        segments: new SegmentWrites(deps),
        flagd: new FlagdWrites(deps),
        scheduledChanges,
        experiments,
        releases,
      },
      clock,
    ),
    releases,
    releaseTemplates: new ReleaseTemplateService(store, clock),
  };
}
