/**
 * Milliseconds since the epoch, like `Date.now`. Everything that reads the time takes one, so
 * tests can move time; `main.ts` wires the system clock.
 */
export type Clock = () => number;

export const systemClock: Clock = Date.now;

/** The clock's time in whole seconds since the epoch, as evaluation takes it (`nowSeconds`). */
export const epochSeconds = (clock: Clock): number => Math.floor(clock() / 1000);

/** The clock's time as RFC 3339 text, as stored. */
export const isoTime = (clock: Clock): string => new Date(clock()).toISOString();
