import { useState } from 'react';
import {
  type ApiError,
  api,
  type ChangeRequest,
  type Experiment,
  type ExperimentResults,
  enc,
  useApi,
} from '../api.ts';
import { ErrorSummary } from '../kit/field.tsx';
import { useProject } from '../project.ts';
import { Link } from '../router.tsx';
import { can, useSession } from '../session.ts';
import { LoadError, Loading, PageTitle, Time, toast } from '../ui.tsx';
import { EffectChart, EffectOverTime, percent } from './effect-charts.tsx';

type MetricResult = ExperimentResults['metrics'][number];
type Effect = MetricResult['treatments'][number]['relative'];

const figure = (x: number, digits = 3) => (Number.isInteger(x) ? x.toLocaleString() : x.toFixed(digits));
const interval = (ci: readonly (number | null)[]) =>
  `${ci[0] === null || ci[0] === undefined ? '−∞' : percent(ci[0])} to ${ci[1] === null || ci[1] === undefined ? '+∞' : percent(ci[1])}`;

/** One experiment: what it compares, start and stop, and its results. */
export function ExperimentPage({ experimentKey }: { experimentKey: string }) {
  const { project } = useProject();
  const { me } = useSession();
  const path = `/projects/${enc(project.id)}/experiments/${enc(experimentKey)}`;
  const experiment = useApi<Experiment>(path);
  const results = useApi<ExperimentResults>(`${path}/results`);
  const [problem, setProblem] = useState<ApiError>();
  if (experiment.error) return <LoadError error={experiment.error} retry={experiment.reload} />;
  if (!experiment.data) return <Loading what="the experiment" />;
  const e = experiment.data;
  const mayRun = can(me, 'editor', project);
  const run = async (verb: 'start' | 'stop') => {
    setProblem(undefined);
    try {
      const answer = await api<Experiment | ChangeRequest>('POST', `${path}/${verb}`, undefined, e.version);
      toast(
        'kind' in answer
          ? `${e.environment} requires approval: a change request to ${verb} the experiment is open.`
          : `Experiment ${verb === 'start' ? 'started' : 'stopped'}.`,
      );
      experiment.reload();
      results.reload();
    } catch (error) {
      setProblem(error as ApiError);
    }
  };
  return (
    <>
      <p className="muted small">
        <Link to={`/projects/${enc(project.key)}/experiments`}>Experiments</Link>
      </p>
      <PageTitle
        actions={
          mayRun &&
          e.status !== 'stopped' && (
            <button
              type="button"
              className="btn primary"
              onClick={() => run(e.status === 'draft' ? 'start' : 'stop')}
            >
              {e.status === 'draft' ? 'Start experiment' : 'Stop experiment'}
            </button>
          )
        }
      >
        {e.name} <span className={`badge status-${e.status}`}>{e.status}</span>
      </PageTitle>
      <ErrorSummary problem={problem} />
      <Setup experiment={e} />
      {results.error && <LoadError error={results.error} retry={results.reload} />}
      {results.data && <Results results={results.data} />}
    </>
  );
}

/** What the experiment compares, where, how it is analysed, and when it ran. */
function Setup({ experiment: e }: { experiment: Experiment }) {
  const { project } = useProject();
  return (
    <section className="panel" aria-labelledby="setup">
      <h2 id="setup">Setup</h2>
      <dl className="facts">
        <dt>Flag</dt>
        <dd>
          <Link to={`/projects/${enc(project.key)}/flags/${enc(e.flag)}`}>
            <code>{e.flag}</code>
          </Link>{' '}
          in {e.environment}
        </dd>
        <dt>Compares</dt>
        <dd>
          {e.treatments.join(', ')} against <strong>{e.control}</strong>
        </dd>
        <dt>Analysis</dt>
        <dd>
          {e.analysis.method === 'bayesian'
            ? 'Bayesian'
            : e.analysis.sequential
              ? 'Frequentist, sequential'
              : 'Frequentist'}
          , α {e.analysis.alpha}
          {e.cuped ? ', CUPED' : ''}
        </dd>
        <dt>Ran</dt>
        <dd>
          <Time at={e.startedAt} never="Not started" />
          {e.stoppedAt && (
            <>
              {' '}
              to <Time at={e.stoppedAt} />
            </>
          )}
        </dd>
      </dl>
    </section>
  );
}

function Results({ results }: { results: ExperimentResults }) {
  const total = results.variants.reduce((n, v) => n + v.units, 0);
  return (
    <>
      <section className="panel" aria-labelledby="units">
        <h2 id="units">Units</h2>
        {results.srm.warning && (
          <p className="srm-warning" role="alert">
            <strong>Sample ratio mismatch.</strong> The variants received{' '}
            {results.variants.map((v) => `${v.units.toLocaleString()} ${v.variant}`).join(', ')} units, not
            the split the flag sets (p = {results.srm.pValue.toExponential(2)}). Something sends units
            unevenly: do not trust these results until you know what.
          </p>
        )}
        <p>
          {total.toLocaleString()} units exposed:{' '}
          {results.variants
            .map(
              (v) =>
                `${v.variant} ${v.units.toLocaleString()} (meant ${(v.expectedShare * 100).toFixed(0)} %)`,
            )
            .join(', ')}
          . Sample-ratio check p = {results.srm.pValue.toPrecision(3)}.
        </p>
      </section>
      {results.metrics.map((m) => (
        <MetricPanel key={m.metric} metric={m} bayesian={results.analysis === 'bayesian'} />
      ))}
    </>
  );
}

function EffectCells({ effect, bayesian }: { effect: Effect; bayesian: boolean }) {
  if (effect.errorMessage !== null)
    return (
      <td colSpan={2} data-label="Relative effect">
        Not enough data ({effect.errorMessage})
      </td>
    );
  return (
    <>
      <td data-label="Relative effect (interval)">
        {percent(effect.expected)} <span className="muted small">({interval(effect.ci)})</span>
      </td>
      <td data-label={bayesian ? 'Chance to win' : 'p-value'}>
        {bayesian
          ? `${((effect.chanceToWin ?? 0) * 100).toFixed(1)} % chance to win`
          : `p = ${(effect.pValue ?? 1).toPrecision(3)}`}
      </td>
    </>
  );
}

function MetricPanel({ metric, bayesian }: { metric: MetricResult; bayesian: boolean }) {
  const id = `metric-${metric.metric}`;
  return (
    <section className="panel" aria-labelledby={id}>
      <h2 id={id}>
        {metric.name} <span className="badge">{metric.role}</span>
      </h2>
      <p className="muted small">
        {metric.kind}, {metric.goal === 'increase' ? 'higher is better' : 'lower is better'}
      </p>
      <EffectChart metric={metric} />
      <div className="table-wrap">
        {/* On a phone each row stacks into a card, its cells under their column's heading. */}
        <table className="stacks-on-phone">
          <caption className="visually-hidden">{metric.name} by variant</caption>
          <thead>
            <tr>
              <th scope="col">Variant</th>
              <th scope="col">Units</th>
              <th scope="col">Mean</th>
              <th scope="col">Relative effect (interval)</th>
              <th scope="col">{bayesian ? 'Chance to win' : 'p-value'}</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <th scope="row">{metric.control.variant} (control)</th>
              <td data-label="Units">{metric.control.units.toLocaleString()}</td>
              <td data-label="Mean">{figure(metric.control.mean)}</td>
              <td colSpan={2} className="muted hide-narrow">
                —
              </td>
            </tr>
            {metric.treatments.map((t) => (
              <tr key={t.variant}>
                <th scope="row">{t.variant}</th>
                <td data-label="Units">{t.units.toLocaleString()}</td>
                <td data-label="Mean">{figure(t.mean)}</td>
                <EffectCells effect={t.relative} bayesian={bayesian} />
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3>Effect over time</h3>
      <EffectOverTime metric={metric} />
    </section>
  );
}
