/** Insights count in whole minutes since the Unix epoch (UTC). */
export const MS_PER_MINUTE = 60_000;

export const minuteOf = (iso: string) => Math.floor(Date.parse(iso) / MS_PER_MINUTE);
export const isoOfMinute = (minute: number) => new Date(minute * MS_PER_MINUTE).toISOString();
