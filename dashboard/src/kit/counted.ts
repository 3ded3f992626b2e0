import type { Page } from '../api.ts';

// Counts in words: "1 approval", "2 approvals", "10,001 flags". Pure, unit-tested (counted.test.ts).

const numbers = new Intl.NumberFormat('en');

/** `n` and its noun, singular for one: `counted(1, 'approval')` is "1 approval". */
export const counted = (n: number, one: string, other = `${one}s`): string =>
  `${numbers.format(n)} ${n === 1 ? one : other}`;

/** A number as the dashboard prints it: "10,001". */
export const formatted = (n: number): string => numbers.format(n);

/**
 * "101–200 of 10,000 flags": where a counted page stands in its list. `what` is the plural
 * ("flags", "API keys"); a list of one says its singular.
 */
export function pageRange(page: Pick<Page<unknown>, 'items' | 'total' | 'offset'>, what: string): string {
  const total = counted(page.total ?? page.items.length, what.replace(/s$/, ''), what);
  if (page.items.length === 0) return `None of ${total}`;
  return `${formatted(page.offset + 1)}–${formatted(page.offset + page.items.length)} of ${total}`;
}
