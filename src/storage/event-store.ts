import type { TrackingEvent } from '../domain/tracking-event.ts';

/** The project environment whose key sent an event: where it is stored, and what a read names. */
export interface EventOrigin {
  readonly projectId: string;
  readonly environment: string;
}

/** A tracking event as stored: the event, and where it came from. */
export interface StoredEvent extends TrackingEvent, EventOrigin {}

/** Which events a read returns: one project environment, optionally one name, a range of times. */
export interface EventQuery extends EventOrigin {
  readonly name?: string | undefined;
  /** First millisecond included. */
  readonly fromMs?: number | undefined;
  /** First millisecond not included. */
  readonly toMs?: number | undefined;
  readonly limit: number;
}

/**
 * Raw tracking events (SPEC §13), outside transactions: written in batches, kept by day for the
 * retention, dropped a day at a time. An event's identity is its project, environment, id and day
 * (of its timestamp), so a retried batch is stored once.
 */
export interface EventStore {
  /**
   * Stores the batch durably before resolving, in one multi-row statement; events whose identity is
   * stored already (or repeated within the batch) are kept once. Resolves with how many were new.
   */
  insertEvents(events: readonly StoredEvent[]): Promise<number>;
  /** Events of one project environment in time order, then id order. */
  listEvents(query: EventQuery): Promise<readonly StoredEvent[]>;
  /** Makes room for the events of days `fromDay` to `toDay` (PostgreSQL: their partitions); idempotent. */
  prepareDays(fromDay: number, toDay: number): Promise<void>;
  /**
   * Drops the events of every day before `beforeDay` (PostgreSQL: drops their partitions; SQLite:
   * deletes in bounded batches, so no statement holds the database long). Resolves with the days or rows dropped.
   */
  pruneEvents(beforeDay: number): Promise<number>;
}
