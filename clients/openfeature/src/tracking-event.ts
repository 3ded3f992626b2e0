// What POST /v1/events takes (SPEC §13): one event of a batch, as the client sends it.

/** The event `$exposure` says which variant of a flag a unit was shown. */
export const EXPOSURE_EVENT = '$exposure';

/** One tracking event on the wire: `{ name, context: { targetingKey, … }, value?, details?, timestamp, id }`. */
export interface WireEvent {
  readonly id: string;
  readonly name: string;
  readonly timestamp: string;
  readonly context: Readonly<Record<string, unknown>>;
  readonly value?: number;
  readonly details?: Readonly<Record<string, unknown>>;
}

/**
 * A random RFC 4122 version 4 id. `crypto.getRandomValues`, unlike `randomUUID`, exists in pages
 * served over plain http too; the id must be unique across clients, since the server keeps one
 * event per id.
 */
export function eventId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The wire form of OpenFeature's `track(name, context, details)`: `details.value` is the event's
 * number, the other details its `details`. The id and time are fixed now, so a retry sends the same.
 */
export function toWireEvent(
  name: string,
  context: Readonly<Record<string, unknown>>,
  details: Readonly<Record<string, unknown>> = {},
  now: Date = new Date(),
): WireEvent {
  const { value, ...rest } = details;
  return {
    id: eventId(),
    name,
    timestamp: now.toISOString(),
    context,
    ...(typeof value === 'number' ? { value } : {}),
    ...(Object.keys(rest).length > 0 ? { details: rest } : {}),
  };
}
