const HOUR_MS = 60 * 60 * 1000;

/**
 * Upkeep a service does at most once an hour, on calls it gets anyway (a flush, a sign-in), with
 * no timer of its own: dropping what expired, making the coming days' partitions. Due before its
 * first run. The caller says when it ran, so upkeep that fails can be tried again at once.
 */
export class HourlyUpkeep {
  #lastRun = Number.NEGATIVE_INFINITY;

  /** Whether an hour has passed at `nowMs` since the upkeep last ran. */
  due(nowMs: number): boolean {
    return nowMs - this.#lastRun >= HOUR_MS;
  }

  /** The upkeep ran at `nowMs`: the next is due an hour later. */
  ran(nowMs: number): void {
    this.#lastRun = nowMs;
  }
}
