import type { RunningExperiment, RunningExperiments } from '../../domain/exposure.ts';
import { type ReleasePlan, releaseComparisonKey } from '../../domain/release-plan.ts';

const placeOf = (projectId: string, environment: string, flagKey: string) =>
  JSON.stringify([projectId, environment, flagKey]);

/**
 * The running release plans with a metric guard, as the exposures port asks (SPEC §13): a unit
 * served the plan's flag is exposed under `release:<plan id>`, in the variant it was served.
 * Answered from memory on the evaluation path; the guard checker replaces it on every pass.
 */
export class RunningReleases implements RunningExperiments {
  #covering: ReadonlyMap<string, RunningExperiment> = new Map();

  covering(projectId: string, environment: string, flagKey: string): RunningExperiment | undefined {
    return this.#covering.get(placeOf(projectId, environment, flagKey));
  }

  /** The plans running now (of every status: only running ones with a metric guard are kept). */
  replace(plans: readonly ReleasePlan[]): void {
    const measured = plans.filter((p) => p.status === 'running' && p.guards.some((g) => g.kind === 'metric'));
    this.#covering = new Map(
      measured.map((p) => [
        placeOf(p.projectId, p.environment, p.flagKey),
        { key: releaseComparisonKey(p.id), variants: [p.control, p.treatment] },
      ]),
    );
  }
}
