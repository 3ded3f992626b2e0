// RFC 3339 date-time (§5.6), with `T`/`t`/space separator, and RFC 3339 full-date.
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2})))?$/;
const EPOCH_SECONDS = /^-?\d+(\.\d+)?$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] as number);
}

// Date.UTC reads years 0–99 as 1900–1999; setUTCFullYear does not.
function utcMillis(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

function parseDateTime(text: string): number | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (m[4] === undefined) return utcMillis(year, month, day, 0, 0, 0);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  // 60 is a leap second (RFC 3339 allows it); it rolls into the next minute.
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  let offsetMinutes = 0;
  if (m[9] !== undefined) {
    const offsetHours = Number(m[10]);
    const offsetMins = Number(m[11]);
    if (offsetHours > 23 || offsetMins > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const fraction = m[7] === undefined ? 0 : Number(m[7]) * 1000;
  return utcMillis(year, month, day, hour, minute, second) + fraction - offsetMinutes * 60_000;
}

/**
 * Milliseconds since the epoch of an RFC 3339 date-time (or full-date, read as midnight UTC), or of
 * epoch seconds given as a number or a decimal string; undefined when the value is neither.
 */
export function parseInstant(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value * 1000 : undefined;
  if (typeof value !== 'string') return undefined;
  if (EPOCH_SECONDS.test(value)) return Number(value) * 1000;
  return parseDateTime(value);
}
