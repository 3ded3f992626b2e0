import type { ExperimentResults } from '../api.ts';

// The results page's charts, drawn as SVG (no chart library): each treatment's effect with its
// interval against zero, and the effect over time as a line inside its interval band. Each is an
// image with a text alternative; the numbers are in the table beside it.

type MetricResult = ExperimentResults['metrics'][number];
type Interval = readonly (number | null)[];

const WIDTH = 560;
const ROW = 34;
const PAD = 16;

export const percent = (x: number, digits = 1) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(digits)} %`;

/** The span the chart shows: every interval and zero, with a little room. */
function spanOf(values: readonly number[]): [number, number] {
  const lo = Math.min(0, ...values);
  const hi = Math.max(0, ...values);
  const room = (hi - lo || 0.1) * 0.1;
  return [lo - room, hi + room];
}

const finiteBounds = (ci: Interval, expected: number): [number, number] => [
  ci[0] ?? expected,
  ci[1] ?? expected,
];

/** Whether the interval lies wholly above zero (better for `increase`), below, or spans it. */
function verdict(ci: Interval, goal: MetricResult['goal']): 'better' | 'worse' | 'unclear' {
  const [lo, hi] = [ci[0] ?? Number.NEGATIVE_INFINITY, ci[1] ?? Number.POSITIVE_INFINITY];
  const up = lo > 0;
  const down = hi < 0;
  if (!up && !down) return 'unclear';
  return up === (goal === 'increase') ? 'better' : 'worse';
}

/** Each treatment's relative effect on the metric, a dot on its interval, against the line of no effect. */
export function EffectChart({ metric }: { metric: MetricResult }) {
  const rows = metric.treatments.map((t) => ({
    variant: t.variant,
    expected: t.relative.expected,
    ci: finiteBounds(t.relative.ci, t.relative.expected),
    verdict: verdict(t.relative.ci, metric.goal),
  }));
  const [lo, hi] = spanOf(rows.flatMap((r) => r.ci));
  const x = (v: number) => PAD + ((v - lo) / (hi - lo)) * (WIDTH - 2 * PAD);
  const height = rows.length * ROW + 36;
  // The ends' labels, unless they would sit on the zero's.
  const apart = (v: number) => Math.abs(x(v) - x(0)) > 40;
  const label = rows
    .map((r) => `${r.variant}: ${percent(r.expected)}, interval ${percent(r.ci[0])} to ${percent(r.ci[1])}`)
    .join('; ');
  return (
    <svg
      className="effect-chart"
      viewBox={`0 0 ${WIDTH} ${height}`}
      role="img"
      aria-label={`Relative effect on ${metric.name} against ${metric.control.variant}: ${label}`}
    >
      <line className="zero" x1={x(0)} x2={x(0)} y1={4} y2={height - 20} />
      <text className="axis" x={x(0)} y={height - 6} textAnchor="middle">
        0 %
      </text>
      {apart(lo) && (
        <text className="axis" x={PAD} y={height - 6}>
          {percent(lo, 0)}
        </text>
      )}
      {apart(hi) && (
        <text className="axis" x={WIDTH - PAD} y={height - 6} textAnchor="end">
          {percent(hi, 0)}
        </text>
      )}
      {rows.map((r, i) => {
        const y = 24 + i * ROW;
        return (
          <g key={r.variant} className={`effect ${r.verdict}`}>
            <line className="interval" x1={x(r.ci[0])} x2={x(r.ci[1])} y1={y} y2={y} />
            <circle cx={x(r.expected)} cy={y} r={5} />
            <text className="label" x={Math.min(x(r.ci[1]) + 8, WIDTH - 90)} y={y - 8}>
              {r.variant} {percent(r.expected)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

/** The first treatment's relative effect at each hour: a line inside the band of its interval. */
export function EffectOverTime({ metric }: { metric: MetricResult }) {
  const points = metric.overTime.flatMap((p) => {
    const t = p.treatments[0];
    return t === undefined || t.units === 0
      ? []
      : [{ at: p.at, expected: t.expected, ci: finiteBounds(t.ci, t.expected) }];
  });
  if (points.length < 2) {
    return <p className="muted">The effect over time shows once the experiment has run for two hours.</p>;
  }
  const height = 160;
  const [lo, hi] = spanOf(points.flatMap((p) => p.ci));
  const x = (i: number) => PAD + (i / (points.length - 1)) * (WIDTH - 2 * PAD);
  const y = (v: number) => 8 + (1 - (v - lo) / (hi - lo)) * (height - 36);
  const band = [
    ...points.map((p, i) => `${x(i)},${y(p.ci[1])}`),
    ...points.map((p, i) => `${x(i)},${y(p.ci[0])}`).reverse(),
  ].join(' ');
  const last = points.at(-1) as (typeof points)[number];
  return (
    <svg
      className="effect-over-time"
      viewBox={`0 0 ${WIDTH} ${height}`}
      role="img"
      aria-label={`Relative effect on ${metric.name} over ${points.length} hours, now ${percent(last.expected)}`}
    >
      <polygon className="band" points={band} />
      <line className="zero" x1={PAD} x2={WIDTH - PAD} y1={y(0)} y2={y(0)} />
      <polyline className="line" points={points.map((p, i) => `${x(i)},${y(p.expected)}`).join(' ')} />
      <text className="axis" x={PAD} y={height - 6}>
        {new Date(points[0]?.at ?? '').toLocaleString()}
      </text>
      <text className="axis" x={WIDTH - PAD} y={height - 6} textAnchor="end">
        {new Date(last.at).toLocaleString()}
      </text>
    </svg>
  );
}
