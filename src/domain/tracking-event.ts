import { contextLimitBreach } from './context-limits.ts';
import type { JsonValue } from './flag.ts';
import { isJsonObject, isPlainObject } from './json.ts';

// Tracking events (docs/measurement.md, SPEC §13): what applications report with OpenFeature's
// `client.track(name, context, details)`. This file is pure: it says what a valid event is, and
// why an invalid one is refused, so that a batch keeps its valid events and names the others.

/** At most this many events in one POST /v1/events. */
export const MAX_EVENTS_PER_BATCH = 1000;
/** An event may carry a timestamp this far ahead of the server's clock (clocks drift). */
export const FUTURE_SKEW_MS = 5 * 60 * 1000;
export const EVENT_NAME_MAX_LENGTH = 128;
export const EVENT_ID_MAX_LENGTH = 128;
export const TARGETING_KEY_MAX_LENGTH = 256;
/** The event `$exposure` says which variant of a flag a unit was shown (details: { flag, variant }). */
export const EXPOSURE_EVENT = '$exposure';
export const MS_PER_DAY = 24 * 60 * 60 * 1000;

/** Letters, digits and `_ . : / -` and inner spaces; `$` starts only the names Flagstaff reserves. */
export const EVENT_NAME_PATTERN = '^[A-Za-z0-9_](?:[A-Za-z0-9_.:/ -]*[A-Za-z0-9_.:/-])?$';
const NAME = new RegExp(EVENT_NAME_PATTERN);
const FIELDS = new Set(['name', 'context', 'value', 'details', 'timestamp', 'id']);
const RFC_3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** Why one event of a batch was refused: a stable code and a sentence for people. */
export type EventRefusalCode =
  | 'invalid_event'
  | 'unknown_field'
  | 'invalid_name'
  | 'invalid_context'
  | 'targeting_key_missing'
  | 'invalid_value'
  | 'invalid_details'
  | 'invalid_timestamp'
  | 'future_timestamp'
  | 'expired_timestamp'
  | 'invalid_id'
  | 'invalid_exposure';

export interface EventRefusal {
  readonly code: EventRefusalCode;
  readonly message: string;
}

/** A valid event, as the server keeps it: its unit apart from the rest of its context. */
export interface TrackingEvent {
  /** The client's id (a retry sends the same), or one the server made. */
  readonly id: string;
  readonly name: string;
  /** The context's `targetingKey`: the unit experiments count. */
  readonly unit: string;
  /** The context without `targetingKey`. */
  readonly context: { readonly [key: string]: JsonValue };
  readonly value: number | null;
  readonly details: { readonly [key: string]: JsonValue } | null;
  /** When it happened, in milliseconds since the epoch (the time it arrived when not sent). */
  readonly timestamp: number;
}

/** What `checkEvent` needs besides the event. */
export interface EventCheck {
  readonly nowMs: number;
  /** Events older than this (ms since the epoch) are past retention: refused, never stored to be dropped. */
  readonly oldestMs: number;
  /** An id for an event sent without one. */
  readonly newId: () => string;
}

const refuse = (code: EventRefusalCode, message: string): EventRefusal => ({ code, message });

/** The day (since the epoch, UTC) a time in milliseconds falls on: events are kept and dropped by day. */
export const dayOf = (ms: number): number => Math.floor(ms / MS_PER_DAY);

function checkName(name: unknown): EventRefusal | undefined {
  if (typeof name !== 'string' || name === '') return refuse('invalid_name', 'name is required: a string.');
  if (name.length > EVENT_NAME_MAX_LENGTH)
    return refuse('invalid_name', `name must be at most ${EVENT_NAME_MAX_LENGTH} characters.`);
  if (name === EXPOSURE_EVENT) return undefined;
  if (!NAME.test(name))
    return refuse(
      'invalid_name',
      'name must be letters, digits and _ . : / - (inner spaces allowed); names starting with $ are reserved ($exposure).',
    );
  return undefined;
}

function checkContext(context: unknown): EventRefusal | undefined {
  if (!isPlainObject(context))
    return refuse('invalid_context', 'context must be an object with a targetingKey.');
  const breach = contextLimitBreach(context);
  if (breach !== undefined) return refuse('invalid_context', `context ${breach}.`);
  const key = context.targetingKey;
  if (typeof key !== 'string' || key === '')
    return refuse('targeting_key_missing', 'context.targetingKey is required: the unit the event is about.');
  if (key.length > TARGETING_KEY_MAX_LENGTH)
    return refuse(
      'targeting_key_missing',
      `context.targetingKey must be at most ${TARGETING_KEY_MAX_LENGTH} characters.`,
    );
  return undefined;
}

function checkDetails(name: string, details: unknown): EventRefusal | undefined {
  if (details !== undefined) {
    if (!isPlainObject(details)) return refuse('invalid_details', 'details must be an object.');
    const breach = contextLimitBreach(details);
    if (breach !== undefined) return refuse('invalid_details', `details ${breach}.`);
  }
  if (name !== EXPOSURE_EVENT) return undefined;
  const exposure = details as Record<string, unknown> | undefined;
  if (typeof exposure?.flag !== 'string' || exposure.flag === '' || typeof exposure.variant !== 'string')
    return refuse(
      'invalid_exposure',
      '$exposure needs details { flag, variant }: the flag read and the variant served.',
    );
  return undefined;
}

function checkTimestamp(timestamp: unknown, check: EventCheck): number | EventRefusal {
  if (timestamp === undefined) return check.nowMs;
  const ms = typeof timestamp === 'string' && RFC_3339.test(timestamp) ? Date.parse(timestamp) : Number.NaN;
  if (Number.isNaN(ms)) return refuse('invalid_timestamp', 'timestamp must be an RFC 3339 date-time.');
  if (ms > check.nowMs + FUTURE_SKEW_MS)
    return refuse(
      'future_timestamp',
      'timestamp is in the future (more than 5 minutes ahead of the server).',
    );
  if (ms < check.oldestMs)
    return refuse(
      'expired_timestamp',
      'timestamp is older than the events this server keeps (FLAGSTAFF_EVENT_RETENTION_DAYS).',
    );
  return ms;
}

function checkId(id: unknown): EventRefusal | undefined {
  if (id === undefined) return undefined;
  if (typeof id !== 'string' || id === '' || id.length > EVENT_ID_MAX_LENGTH)
    return refuse('invalid_id', `id must be a string of 1 to ${EVENT_ID_MAX_LENGTH} characters.`);
  return undefined;
}

/** One event of a batch: the event to keep, or why it is refused (the first problem found). */
export function checkEvent(raw: unknown, check: EventCheck): TrackingEvent | EventRefusal {
  if (!isPlainObject(raw)) return refuse('invalid_event', 'Each event must be an object.');
  const unknown = Object.keys(raw).find((field) => !FIELDS.has(field));
  if (unknown !== undefined) return refuse('unknown_field', `Unknown field "${unknown}".`);
  const { name, context, value, details, timestamp, id } = raw;
  const problem =
    checkName(name) ??
    checkContext(context) ??
    (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))
      ? refuse('invalid_value', 'value must be a finite number.')
      : undefined) ??
    checkDetails(name as string, details) ??
    checkId(id);
  if (problem !== undefined) return problem;
  const at = checkTimestamp(timestamp, check);
  if (typeof at !== 'number') return at;
  const { targetingKey, ...rest } = context as Record<string, JsonValue>;
  return {
    id: (id as string | undefined) ?? check.newId(),
    name: name as string,
    unit: targetingKey as string,
    context: rest,
    value: (value as number | undefined) ?? null,
    details: isJsonObject(details) ? details : null,
    timestamp: at,
  };
}

/** Tells a refusal from an event. */
export const isRefusal = (checked: TrackingEvent | EventRefusal): checked is EventRefusal =>
  'code' in checked && !('unit' in checked);
