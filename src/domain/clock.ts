/**
 * Milliseconds since the epoch, like `Date.now`. Everything that reads the time takes one, so
 * tests can move time; `main.ts` wires the system clock.
 */
export type Clock = () => number;

export const systemClock: Clock = Date.now;

/** The clock's time as RFC 3339 text, as stored. */
export const isoTime = (clock: Clock): string => new Date(clock()).toISOString();
