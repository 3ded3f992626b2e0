import { type Clock, systemClock } from '../../domain/clock.ts';
import { overloaded, payloadTooLarge } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import {
  checkEvent,
  dayOf,
  type EventRefusalCode,
  EXPOSURE_EVENT,
  isRefusal,
  MAX_EVENTS_PER_BATCH,
  MS_PER_DAY,
} from '../../domain/tracking-event.ts';
import type { EventOrigin, StoredEvent } from '../../storage/event-store.ts';
import type { MeasurementRole } from '../../storage/store.ts';
import { HourlyUpkeep } from '../core/hourly-upkeep.ts';
import type { ExposureService } from './exposure-service.ts';

/** Batches one node holds at once, from their body's arrival to their answer: the bound on its memory. */
export const DEFAULT_BATCHES_IN_FLIGHT = 16;
/** Seconds a refused batch is told to wait: a batch of 500 is written in tens of milliseconds. */
export const OVERLOAD_RETRY_AFTER_SECONDS = 1;
/** Partitions made ahead of today, so that midnight never waits for one. */
const DAYS_AHEAD = 2;

export interface EventServiceOptions {
  readonly clock?: Clock | undefined;
  /** FLAGSTAFF_EVENT_RETENTION_DAYS, default 90. */
  readonly retentionDays?: number | undefined;
  readonly batchesInFlight?: number | undefined;
}

export interface EventRejection {
  readonly index: number;
  readonly code: EventRefusalCode;
  readonly message: string;
}

export interface TrackResult {
  /** Events kept, stored ones of a retry included. */
  readonly accepted: number;
  readonly rejected: readonly EventRejection[];
}

/**
 * Tracking events in (SPEC §13): each event checked on its own, the valid ones written in one
 * statement before the answer, `$exposure` ones handed to the exposure counter. A bounded number
 * of batches is admitted at once: beyond it a batch is refused whole (503) before its body is read.
 */
export class EventService {
  readonly #store: MeasurementRole;
  readonly #exposures: ExposureService;
  readonly #clock: Clock;
  readonly #maxInFlight: number;
  /** How long events are kept, in days. */
  readonly retentionDays: number;
  #inFlight = 0;
  readonly #maintenance = new HourlyUpkeep();

  constructor(store: MeasurementRole, exposures: ExposureService, options: EventServiceOptions = {}) {
    this.#store = store;
    this.#exposures = exposures;
    this.#clock = options.clock ?? systemClock;
    this.retentionDays = options.retentionDays ?? 90;
    this.#maxInFlight = options.batchesInFlight ?? DEFAULT_BATCHES_IN_FLIGHT;
  }

  /** Takes a place for one batch; throws `overloaded` when every place is taken. Pair with `release`. */
  admit(): void {
    if (this.#inFlight >= this.#maxInFlight) {
      throw overloaded(
        `This node is writing as many event batches as it holds; nothing of this batch was kept. Retry in ${OVERLOAD_RETRY_AFTER_SECONDS} s.`,
      );
    }
    this.#inFlight++;
  }

  release(): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
  }

  /** The oldest time an event may carry: older ones are past retention. */
  #oldestMs(nowMs: number): number {
    return nowMs - this.retentionDays * MS_PER_DAY;
  }

  /**
   * Checks every event, stores the valid ones durably under `target` (the project environment of
   * the key that sent them, resolved by the route), and says which were refused and why.
   */
  async track(target: EventOrigin, events: readonly unknown[]): Promise<TrackResult> {
    if (events.length > MAX_EVENTS_PER_BATCH) {
      throw payloadTooLarge(
        `A batch holds at most ${MAX_EVENTS_PER_BATCH} events; this one has ${events.length}. Send it in smaller batches.`,
      );
    }
    const nowMs = this.#clock();
    const check = { nowMs, oldestMs: this.#oldestMs(nowMs), newId: () => newId('evt', this.#clock) };
    const kept: StoredEvent[] = [];
    const rejected: EventRejection[] = [];
    events.forEach((raw, index) => {
      const checked = checkEvent(raw, check);
      if (isRefusal(checked)) rejected.push({ index, code: checked.code, message: checked.message });
      else kept.push({ ...checked, ...target });
    });
    await this.#store.events.insertEvents(kept);
    for (const event of kept) {
      if (event.name !== EXPOSURE_EVENT) continue;
      const { flag, variant } = event.details as { flag: string; variant: string };
      this.#exposures.counter.see({
        ...target,
        flagKey: flag,
        variant,
        unit: event.unit,
        atMs: event.timestamp,
      });
    }
    return { accepted: kept.length, rejected };
  }

  /**
   * Hourly (called with every flush): makes the coming days' partitions and drops the days past
   * retention. Resolves with what retention dropped, or undefined when it was not yet time.
   */
  async maintain(): Promise<number | undefined> {
    const nowMs = this.#clock();
    if (!this.#maintenance.due(nowMs)) return undefined;
    const today = dayOf(nowMs);
    await this.#store.events.prepareDays(today, today + DAYS_AHEAD);
    const dropped = await this.#store.events.pruneEvents(dayOf(this.#oldestMs(nowMs)));
    this.#maintenance.ran(nowMs);
    return dropped;
  }
}
