import { ComparisonsByFlag, type RunningExperiment, type RunningExperiments } from '../../domain/exposure.ts';
import { type ReleasePlan, releaseComparisonKey } from '../../domain/release-plan.ts';

/**
 * The running release plans with a metric guard, as the exposures port asks (SPEC §13): a unit
 * served the plan's flag is exposed under `release:<plan id>`, in the variant it was served.
 * Answered from memory on the evaluation path; the guard checker replaces it on every pass.
 */
export class RunningReleases implements RunningExperiments {
  #covering = new ComparisonsByFlag();

  covering(projectId: string, environment: string, flagKey: string): RunningExperiment | undefined {
    return this.#covering.covering(projectId, environment, flagKey);
  }

  /** The plans running now (of every status: only running ones with a metric guard are kept). */
  replace(plans: readonly ReleasePlan[]): void {
    const measured = plans.filter((p) => p.status === 'running' && p.guards.some((g) => g.kind === 'metric'));
    this.#covering = new ComparisonsByFlag(
      measured.map((p) => [p, { key: releaseComparisonKey(p.id), variants: [p.control, p.treatment] }]),
    );
  }
}
