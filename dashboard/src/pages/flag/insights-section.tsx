import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { enc, type Flag, type FlagInsights, useApi } from '../../api.ts';
import { Options } from '../../kit/field.tsx';
import { primaryEnvironment } from '../../primary-environment.ts';
import { useEnvironmentNames, useProject } from '../../project.ts';
import { LoadError, Loading, Time } from '../../ui.tsx';
import { environmentChoices } from '../environment-field.tsx';

const RANGES = [
  { key: '24h', label: '24 hours', hours: 24 },
  { key: '7d', label: '7 days', hours: 7 * 24 },
  { key: '30d', label: '30 days', hours: 30 * 24 },
] as const;
type RangeKey = (typeof RANGES)[number]['key'];

/**
 * Variant colours, each ≥ 3:1 against white (WCAG 1.4.11), with a dash pattern of its own so no
 * line is told apart by colour alone.
 */
const LINES: readonly { readonly stroke: string; readonly dash: number[] }[] = [
  { stroke: '#1f4fd6', dash: [] },
  { stroke: '#b35900', dash: [8, 4] },
  { stroke: '#1a7f37', dash: [2, 3] },
  { stroke: '#a21caf', dash: [10, 3, 2, 3] },
  { stroke: '#b42318', dash: [4, 4] },
  { stroke: '#57606a', dash: [1, 5] },
];

const numbers = new Intl.NumberFormat('en');
const bucketTime = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });
const variantLabel = (variant: string | null) => variant ?? '(no variant)';

/** One line per variant: the series of every reason added up. */
function byVariant(insights: FlagInsights): { variant: string | null; counts: number[]; total: number }[] {
  const lines = new Map<string, { variant: string | null; counts: number[]; total: number }>();
  for (const s of insights.series) {
    const id = variantLabel(s.variant);
    const line = lines.get(id) ?? { variant: s.variant, counts: insights.buckets.map(() => 0), total: 0 };
    s.counts.forEach((count, i) => {
      line.counts[i] = (line.counts[i] ?? 0) + count;
    });
    line.total += s.total;
    lines.set(id, line);
  }
  return [...lines.values()];
}

/** The flag page's insights: evaluations per variant over time, as a chart or as a table. */
export function FlagInsightsSection({ flag }: { flag: Flag }) {
  const { environments } = useProject();
  const [environment, setEnvironment] = useState(primaryEnvironment(environments)?.key ?? 'production');
  const [range, setRange] = useState<RangeKey>('24h');
  const [view, setView] = useState<'chart' | 'table'>('chart');
  // The range ends at the next whole minute, so reloading within a minute asks the same question.
  const [to] = useState(() => new Date(Math.ceil(Date.now() / 60_000) * 60_000));
  const hours = RANGES.find((r) => r.key === range)?.hours ?? 24;
  const from = new Date(to.getTime() - hours * 3_600_000);
  const insights = useApi<FlagInsights>(
    `/flags/${enc(flag.id)}/insights?environment=${enc(environment)}&from=${enc(from.toISOString())}&to=${enc(to.toISOString())}`,
  );
  const id = useId();
  const rangeLabel = RANGES.find((r) => r.key === range)?.label ?? range;
  const environmentName = useEnvironmentNames()(environment);

  return (
    <section className="panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Insights</h2>
      <div className="filters">
        <label className="field inline">
          <span>Environment</span>
          <select value={environment} onChange={(e) => setEnvironment(e.target.value)}>
            <Options choices={environmentChoices(environments)} />
          </select>
        </label>
        <Segmented
          name={`${id}-range`}
          legend="Period"
          choices={RANGES.map((r) => [r.key, r.label] as const)}
          value={range}
          onChange={setRange}
        />
        <Segmented name={`${id}-view`} legend="Show as" choices={VIEWS} value={view} onChange={setView} />
      </div>
      {insights.error && <LoadError error={insights.error} retry={insights.reload} />}
      {insights.loading && <Loading what="insights" />}
      {insights.data && (
        <Evaluations
          insights={insights.data}
          view={view}
          environmentName={environmentName}
          rangeLabel={rangeLabel}
        />
      )}
    </section>
  );
}

const VIEWS = [
  ['chart', 'Chart'],
  ['table', 'Table'],
] as const;

/** Radio buttons that look like one segmented control; the legend is for screen readers. */
function Segmented<V extends string>({
  name,
  legend,
  choices,
  value,
  onChange,
}: {
  name: string;
  legend: string;
  choices: readonly (readonly [V, string])[];
  value: V;
  onChange: (value: V) => void;
}) {
  return (
    <fieldset className="segmented">
      <legend className="visually-hidden">{legend}</legend>
      {choices.map(([choice, label]) => (
        <label key={choice}>
          <input
            className="segment-input"
            type="radio"
            name={name}
            value={choice}
            checked={value === choice}
            onChange={() => onChange(choice)}
          />
          <span className="segment-label">{label}</span>
        </label>
      ))}
    </fieldset>
  );
}

/** How many evaluations the period had and when the last was, then per variant as a chart or a table. */
function Evaluations({
  insights,
  view,
  environmentName,
  rangeLabel,
}: {
  insights: FlagInsights;
  view: 'chart' | 'table';
  environmentName: string;
  rangeLabel: string;
}) {
  return (
    <>
      <p aria-live="polite">
        <strong>{numbers.format(insights.total)}</strong> evaluations in {environmentName} in the last{' '}
        {rangeLabel}; last evaluated <Time at={insights.lastEvaluatedAt} never="never" />.
      </p>
      {insights.total === 0 ? (
        <p className="muted">
          No evaluation in this period. Counts are written every 10 seconds and kept for 30 days.
        </p>
      ) : view === 'chart' ? (
        <EvaluationsChart insights={insights} title={`Evaluations per variant, last ${rangeLabel}`} />
      ) : (
        <EvaluationsTable insights={insights} caption={`Evaluations per variant, last ${rangeLabel}`} />
      )}
    </>
  );
}

/** The chart, drawn by uPlot (loaded with the section, not with the dashboard; decision 1050). */
function EvaluationsChart({ insights, title }: { insights: FlagInsights; title: string }) {
  const holder = useRef<HTMLDivElement>(null);
  const lines = useMemo(() => byVariant(insights), [insights]);
  useEffect(() => {
    let plot: { destroy(): void; setSize(size: { width: number; height: number }): void } | undefined;
    let observer: ResizeObserver | undefined;
    let cancelled = false;
    void import('uplot').then(({ default: UPlot }) => {
      const element = holder.current;
      if (cancelled || element === null) return;
      const width = () => Math.max(280, element.clientWidth);
      const xs = insights.buckets.map((b) => Date.parse(b) / 1000);
      plot = new UPlot(
        {
          width: width(),
          height: 260,
          // The legend names the lines; exact values are in the table view.
          legend: { show: true, live: false },
          cursor: { drag: { x: false, y: false } },
          // Counts start at zero: a scale that starts higher exaggerates a change.
          scales: {
            y: { range: (_plot: unknown, _min: number, max: number) => [0, Math.max(1, max) * 1.1] },
          },
          axes: [{ stroke: '#57606a' }, { stroke: '#57606a', size: 60 }],
          series: [
            {},
            ...lines.map((line, i) => {
              const style = LINES[i % LINES.length] ?? { stroke: '#1f4fd6', dash: [] };
              return { label: variantLabel(line.variant), stroke: style.stroke, dash: style.dash, width: 2 };
            }),
          ],
        },
        [xs, ...lines.map((line) => line.counts)],
        element,
      );
      observer = new ResizeObserver(() => plot?.setSize({ width: width(), height: 260 }));
      observer.observe(element);
    });
    return () => {
      cancelled = true;
      observer?.disconnect();
      plot?.destroy();
    };
  }, [insights, lines]);
  // The canvas says nothing to a screen reader: the figure names what it shows and the totals,
  // and the table view holds every number.
  return (
    <figure className="chart">
      <div
        ref={holder}
        role="img"
        aria-label={`${title}: ${lines.map((l) => `${variantLabel(l.variant)} ${numbers.format(l.total)}`).join(', ')}. Choose Table for every value.`}
      />
      <figcaption className="muted small">{title}</figcaption>
    </figure>
  );
}

/** The same numbers as the chart, one row per bucket and a column per variant. */
function EvaluationsTable({ insights, caption }: { insights: FlagInsights; caption: string }) {
  const lines = byVariant(insights);
  return (
    // A scrolling region must take focus, so keyboard users can scroll it (axe: scrollable-region-focusable).
    // biome-ignore lint/a11y/noNoninteractiveTabindex: see above
    <section className="table-wrap chart-table" aria-label={caption} tabIndex={0}>
      <table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">From</th>
            {lines.map((line) => (
              <th scope="col" key={variantLabel(line.variant)} className="numeric">
                {variantLabel(line.variant)}
              </th>
            ))}
            <th scope="col" className="numeric">
              All
            </th>
          </tr>
        </thead>
        <tbody>
          {insights.buckets.map((bucket, i) => (
            <tr key={bucket}>
              <th scope="row">
                <time dateTime={bucket}>{bucketTime.format(new Date(bucket))}</time>
              </th>
              {lines.map((line) => (
                <td key={variantLabel(line.variant)} className="numeric">
                  {numbers.format(line.counts[i] ?? 0)}
                </td>
              ))}
              <td className="numeric">
                {numbers.format(lines.reduce((sum, l) => sum + (l.counts[i] ?? 0), 0))}
              </td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">Total</th>
            {lines.map((line) => (
              <td key={variantLabel(line.variant)} className="numeric">
                {numbers.format(line.total)}
              </td>
            ))}
            <td className="numeric">{numbers.format(insights.total)}</td>
          </tr>
        </tfoot>
      </table>
    </section>
  );
}
