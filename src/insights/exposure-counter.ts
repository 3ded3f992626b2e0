import type { EvaluationObserver, ServedIn } from '../domain/evaluation-observer.ts';
import type { EvaluationDetail } from '../domain/evaluation-result.ts';
import { type Exposure, exposureKey, mergeExposures, type RunningExperiments } from '../domain/exposure.ts';

/** Units waiting for the next flush: beyond this, exposures are dropped (and counted) until it runs. */
export const MAX_PENDING_EXPOSURES = 100_000;
/** Units already written with their variant, so a unit served again is not written again. */
const MAX_REMEMBERED = 200_000;
/** Remembered for a unit marked multiple: nothing it is served later changes its row. */
const ANY_VARIANT = '\u0000any';

/** What one exposure says, before it is known whether an experiment covers its flag. */
export interface Seen {
  readonly projectId: string;
  readonly environment: string;
  readonly flagKey: string;
  readonly unit: string;
  readonly variant: string;
  readonly atMs: number;
}

/**
 * Exposures of units to running experiments (SPEC §13), kept in memory and written by the flush,
 * once per unit: a unit written already in the variant it is served again costs a map lookup.
 * Told of single evaluations only: a bulk evaluation exposes no one (the application may never
 * read the flag), so its clients send `$exposure` events instead, which `see` takes too.
 */
export class ExposureCounter implements EvaluationObserver {
  readonly #experiments: RunningExperiments;
  #pending = new Map<string, Exposure>();
  /** Written units (by exposureKey) and their variant; cleared whole when full, at worst a unit is written twice. */
  #written = new Map<string, string>();
  /** Exposures dropped because the flush fell behind: logged by whoever flushes. */
  dropped = 0;

  constructor(experiments: RunningExperiments) {
    this.#experiments = experiments;
  }

  served(where: ServedIn, result: EvaluationDetail, nowMs: number, unit?: string): void {
    if (unit === undefined || result.variant === null) return;
    // The common case, no experiment on the flag: one synchronous lookup.
    const experiment = this.#experiments.covering(where.projectId, where.environment, result.key);
    if (experiment === undefined) return;
    this.#record(where.projectId, where.environment, experiment, unit, result.variant, nowMs);
  }

  servedAll(): void {}

  /** An exposure the application reported (a `$exposure` event); ignored when no running experiment covers the flag. */
  see(seen: Seen): void {
    const experiment = this.#experiments.covering(seen.projectId, seen.environment, seen.flagKey);
    if (experiment === undefined) return;
    this.#record(seen.projectId, seen.environment, experiment, seen.unit, seen.variant, seen.atMs);
  }

  #record(
    projectId: string,
    environment: string,
    experiment: { readonly key: string; readonly variants: readonly string[] },
    unit: string,
    variant: string,
    atMs: number,
  ): void {
    // A variant outside the experiment (a targeted override, the off variant) exposes no one to it.
    if (!experiment.variants.includes(variant)) return;
    const exposure: Exposure = {
      projectId,
      environment,
      experiment: experiment.key,
      unit,
      variant,
      firstAt: atMs,
      multiple: false,
    };
    const key = exposureKey(exposure);
    const written = this.#written.get(key);
    if (written === variant || written === ANY_VARIANT) return;
    const earlier = this.#pending.get(key);
    if (earlier !== undefined) {
      this.#pending.set(key, mergeExposures(earlier, exposure));
    } else if (this.#pending.size < MAX_PENDING_EXPOSURES) {
      this.#pending.set(key, exposure);
    } else {
      this.dropped++;
    }
  }

  /** Takes every exposure recorded since the last drain; `written` remembers them once they are stored. */
  drain(): Exposure[] {
    const all = [...this.#pending.values()];
    this.#pending = new Map();
    return all;
  }

  /** The flush stored these: a unit served the same variant again is not written again. */
  written(exposures: readonly Exposure[]): void {
    if (this.#written.size + exposures.length > MAX_REMEMBERED) this.#written = new Map();
    for (const e of exposures) this.#written.set(exposureKey(e), e.multiple ? ANY_VARIANT : e.variant);
  }

  /** Gives back exposures a flush could not write, so the next one carries them. */
  giveBack(exposures: readonly Exposure[]): void {
    for (const e of exposures) {
      const key = exposureKey(e);
      const later = this.#pending.get(key);
      this.#pending.set(key, later === undefined ? e : mergeExposures(e, later));
    }
  }
}
