import { variantsOf } from '../domain/experiment.ts';
import { ComparisonsByFlag, type RunningExperiment, type RunningExperiments } from '../domain/exposure.ts';
import type { ExperimentStore } from '../storage/experiment-store.ts';

/** How often a node reads which experiments run (decision 1940): a start elsewhere is measured here within this. */
export const RUNNING_EXPERIMENTS_POLL_MS = 2000;

/**
 * The running experiments, in memory (decision 1940): evaluation asks synchronously, the answer
 * comes from a map. It follows starts and stops by reading the running ones every two seconds
 * (one small query per node), and at once on the node that wrote them (`refresh`). Exposures are
 * recorded under the experiment's id, so a key reused after a delete never mixes two experiments.
 */
export class RunningExperimentsInMemory implements RunningExperiments {
  readonly #store: Pick<ExperimentStore, 'experimentsWithStatus'>;
  #byFlag = new ComparisonsByFlag();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(store: Pick<ExperimentStore, 'experimentsWithStatus'>) {
    this.#store = store;
  }

  covering(projectId: string, environment: string, flagKey: string): RunningExperiment | undefined {
    return this.#byFlag.covering(projectId, environment, flagKey);
  }

  /** Reads the running experiments again and answers from them from now on. */
  async refresh(): Promise<void> {
    const running = await this.#store.experimentsWithStatus(['running']);
    this.#byFlag = new ComparisonsByFlag(
      running.map((e) => [
        { projectId: e.projectId, environment: e.environment, flagKey: e.flag },
        { key: e.id, variants: variantsOf(e) },
      ]),
    );
  }

  /** Polls until `stop`; a failed read keeps what was known (the next one catches up). */
  start(onError: (error: unknown) => void, everyMs = RUNNING_EXPERIMENTS_POLL_MS): void {
    this.#timer ??= setInterval(() => this.refresh().catch(onError), everyMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
