import { afterAll, beforeAll, vi } from 'vitest';

/**
 * Pins `Date` to `nowSeconds` for the enclosing describe: flagd-core and `$flagd.timestamp` read the
 * clock, and both sides of a comparison must see one time. Timers are left real.
 */
export function pinClockDuringSuite(nowSeconds: number): void {
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(nowSeconds * 1000));
  });
  afterAll(() => {
    vi.useRealTimers();
  });
}
