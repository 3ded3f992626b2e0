/** The median of some numbers (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** The q-quantile (0 ≤ q ≤ 1) of sorted values, nearest rank. */
export function quantile(sorted: Float64Array | readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

/** One line of the report: a figure, what it is compared with, and the target it must meet. */
export interface Row {
  readonly section: string;
  readonly figure: string;
  /** Flagstaff's figure, formatted with its unit. */
  readonly value: string;
  /** The baseline's figure, formatted; '' when the ratio is against a target only. */
  readonly baseline: string;
  /** value ÷ baseline (or baseline ÷ value for "lower is better"), or NaN when there is none. */
  readonly ratio: number;
  /** E.g. '≥ 0.85', '< 1 s'; '' when informative only. */
  readonly target: string;
  /** Whether the target is met; undefined when there is no target. */
  readonly met?: boolean | undefined;
  readonly note?: string;
}

const SI: readonly [number, string][] = [
  [1e9, 'G'],
  [1e6, 'M'],
  [1e3, 'k'],
];

/** 1234567 → '1.23 M'. */
export function si(value: number, unit = ''): string {
  for (const [scale, prefix] of SI) {
    if (Math.abs(value) >= scale) return `${(value / scale).toFixed(2)} ${prefix}${unit}`;
  }
  return `${value.toFixed(value < 10 ? 2 : 0)} ${unit}`.trimEnd();
}

export function ms(value: number): string {
  return value < 1 ? `${(value * 1000).toFixed(0)} µs` : `${value.toFixed(value < 10 ? 2 : 1)} ms`;
}

export function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

export function ratio(value: number): string {
  if (!Number.isFinite(value)) return '';
  return value >= 10 ? `${value.toFixed(1)}×` : `${value.toFixed(2)}×`;
}

/** The report as an aligned plain-text table, one figure per line with its ratio. */
export function table(rows: readonly Row[]): string {
  const header = ['figure', 'flagstaff', 'baseline', 'ratio', 'target', ''];
  const cells = rows.map((row) => [
    `${row.section}: ${row.figure}`,
    row.value,
    row.baseline,
    ratio(row.ratio),
    row.target,
    row.met === undefined ? '' : row.met ? 'met' : 'MISSED',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  const line = (c: readonly string[]) =>
    c
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] as number) : cell.padStart(widths[i] as number)))
      .join('  ')
      .trimEnd();
  const out = [line(header), widths.map((w) => '-'.repeat(w)).join('  ')];
  for (const [i, row] of rows.entries()) {
    out.push(line(cells[i] as string[]));
    if (row.note) out.push(`    ${row.note}`);
  }
  return out.join('\n');
}
