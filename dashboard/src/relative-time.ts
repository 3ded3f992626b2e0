const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const UNITS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 31536000],
  ['month', 2592000],
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
];

/**
 * "3 minutes ago", "in 1 minute": a moment `seconds` from now (negative: past). A moment of the
 * last 45 s is "just now"; one still to come is never "just now" but at least "in 1 minute", so
 * a change scheduled for the next minute does not read as done.
 */
export function relativeTime(seconds: number): string {
  if (seconds > 0 && seconds < 60) return relative.format(1, 'minute');
  if (Math.abs(seconds) < 45) return 'just now';
  const [unit, size] = UNITS.find(([, s]) => Math.abs(seconds) >= s) ?? ['minute', 60];
  return relative.format(Math.round(seconds / size), unit);
}
