import { systemClock } from '../../domain/clock.ts';
import type { Guard, GuardReading, ReleasePlan } from '../../domain/release-plan.ts';
import type { MetricRole, ReleaseRole } from '../../storage/store.ts';
import { RepeatedPass } from '../core/repeated-pass.ts';
import type { ComparisonStatistics } from '../measurement/comparison-statistics.ts';
import { readMetricGuard, readPrometheusGuard } from './guard-readings.ts';
import type { PrometheusQueries } from './prometheus-client.ts';
import type { ReleasePlanService } from './release-plan-service.ts';
import type { RunningReleases } from './running-releases.ts';

export interface ReleaseGuardOptions {
  readonly clock?: () => number;
  /** How often to look for plans whose guards are due; each plan's own interval decides when they are. */
  readonly tickMs?: number;
  readonly prometheus?: PrometheusQueries | undefined;
  /** The per-variant statistics metric guards read; without them, metric guards cannot be read and hold their plans. */
  readonly statistics?: ComparisonStatistics | undefined;
  /** The exposures port's view of running plans, refreshed on every pass. */
  readonly running?: RunningReleases;
  readonly log?: { warn(object: unknown, message: string): void };
}

/**
 * Reads the guards of running release plans on every node, each plan every
 * `guardIntervalSeconds` and at once when a milestone begins (SPEC §13 "Guards"). The readings
 * go to `ReleasePlanService.recordLook`, against the plan's version: of two nodes that looked at
 * once, one records, so a breach pauses or rolls back exactly once.
 */
export class ReleaseGuards {
  readonly #store: ReleaseRole & MetricRole;
  readonly #plans: ReleasePlanService;
  readonly #options: ReleaseGuardOptions;
  readonly #clock: () => number;
  readonly #passes = new RepeatedPass(
    () => this.runOnce(),
    (error) => this.#options.log?.warn({ err: error }, 'reading release guards failed; retrying'),
  );

  constructor(store: ReleaseRole & MetricRole, plans: ReleasePlanService, options: ReleaseGuardOptions = {}) {
    this.#store = store;
    this.#plans = plans;
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
  }

  /** Looks now, then every tick; passes never overlap. */
  start(): void {
    this.#passes.start(this.#options.tickMs ?? 1000);
  }

  stop(): Promise<void> {
    return this.#passes.stop();
  }

  /** One pass: every running plan whose guards are due is read, and the look recorded. */
  async runOnce(): Promise<void> {
    const plans = await this.#store.releases.plansWithStatus(['running']);
    this.#options.running?.replace(plans);
    const now = this.#clock();
    const due = plans.filter((plan) => plan.guards.length > 0 && this.#due(plan, now));
    await Promise.all(
      due.map(async (plan) => this.#plans.recordLook(plan.id, plan.version, await this.#read(plan, now))),
    );
  }

  #due(plan: ReleasePlan, now: number): boolean {
    if (plan.lookedAt === null || plan.lookedAt < (plan.milestoneStartedAt ?? '')) return true;
    return now - Date.parse(plan.lookedAt) >= plan.guardIntervalSeconds * 1000;
  }

  #read(plan: ReleasePlan, now: number): Promise<GuardReading[]> {
    const at = new Date(now).toISOString();
    return Promise.all(plan.guards.map((guard) => this.#readOne(plan, guard, at)));
  }

  async #readOne(plan: ReleasePlan, guard: Guard, at: string): Promise<GuardReading> {
    if (guard.kind === 'prometheus') return readPrometheusGuard(guard, plan, this.#options.prometheus, at);
    const metric = await this.#store.metrics.findByKey(plan.projectId, guard.metric);
    return readMetricGuard(guard, metric, plan, this.#options.statistics, at);
  }
}
