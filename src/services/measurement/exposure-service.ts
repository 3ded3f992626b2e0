import { NO_RUNNING_EXPERIMENTS, type RunningExperiments } from '../../domain/exposure.ts';
import { ExposureCounter } from '../../insights/exposure-counter.ts';
import type { MeasurementRole } from '../../storage/store.ts';

/**
 * Exposures (SPEC §13): counted in memory by the counter, one of the evaluation observers, and
 * written by `flush` with the insights, every 10 s (main.ts).
 */
export class ExposureService {
  readonly #store: MeasurementRole;
  readonly counter: ExposureCounter;

  constructor(store: MeasurementRole, experiments: RunningExperiments = NO_RUNNING_EXPERIMENTS) {
    this.#store = store;
    this.counter = new ExposureCounter(experiments);
  }

  /** Writes what was recorded since the last flush; what fails to write is kept for the next one. */
  async flush(): Promise<{ readonly written: number; readonly dropped: number }> {
    const exposures = this.counter.drain();
    const dropped = this.counter.dropped;
    this.counter.dropped = 0;
    try {
      await this.#store.exposures.recordExposures(exposures);
    } catch (error) {
      this.counter.giveBack(exposures);
      throw error;
    }
    this.counter.written(exposures);
    return { written: exposures.length, dropped };
  }
}
