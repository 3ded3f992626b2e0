import { api, enc, type ReleasePlan, useApi } from '../../api.ts';
import { useSubmission } from '../../kit/dialogs.tsx';
import { ErrorSummary } from '../../kit/field.tsx';
import { StackingTable } from '../../kit/resource-table.tsx';
import { useEnvironmentNames, useProject } from '../../project.ts';
import { LoadError, Time, toast } from '../../ui.tsx';
import { type FlagEditor, useReloadOnSave } from './use-flag-editor.ts';

type Milestone = ReleasePlan['milestones'][number];
type Move = 'start' | 'pause' | 'resume' | 'proceed' | 'rollback';

const STATUS_WORDS: Readonly<Record<ReleasePlan['status'], string>> = {
  draft: 'Draft',
  awaiting_approval: 'Awaiting approval',
  running: 'Running',
  paused: 'Paused',
  rolled_back: 'Rolled back',
  completed: 'Completed',
};

const MOVE_WORDS: Readonly<Record<Move, string>> = {
  start: 'Start',
  pause: 'Pause',
  resume: 'Resume',
  proceed: 'Proceed to the next milestone',
  rollback: 'Roll back',
};

/** The moves a plan in this status may make, in the order they are offered. */
function movesOf(plan: ReleasePlan): Move[] {
  const last = plan.current === plan.milestones.length - 1;
  if (plan.status === 'draft' || plan.status === 'awaiting_approval') return ['start'];
  if (plan.status === 'running') return [...(last ? [] : ['proceed' as const]), 'pause', 'rollback'];
  if (plan.status === 'paused') return ['resume', ...(last ? [] : ['proceed' as const]), 'rollback'];
  return [];
}

/** What share the new variant has at a milestone, in words. */
function shareOf(milestone: Milestone, plan: ReleasePlan): string {
  const total = milestone.weights.reduce((sum, w) => sum + w.weight, 0);
  const treatment = milestone.weights.find((w) => w.variant === plan.treatment)?.weight ?? 0;
  return `${total === 0 ? 0 : Math.round((treatment / total) * 1000) / 10} % ${plan.treatment}`;
}

function holdOf(milestone: Milestone): string {
  const seconds = milestone.holdSeconds;
  if (seconds === null) return 'until someone proceeds';
  for (const [unit, size] of [
    ['day', 86_400],
    ['hour', 3600],
    ['minute', 60],
  ] as const) {
    if (seconds % size === 0) return `for ${seconds / size} ${unit}${seconds === size ? '' : 's'}`;
  }
  return `for ${seconds} seconds`;
}

/** What the milestone the plan is at says, when the plan is not simply running there. */
const HERE: Partial<Record<ReleasePlan['status'], string>> = {
  paused: 'paused here',
  rolled_back: 'rolled back from here',
};

/** Where a milestone stands in the plan. */
function stageOf(plan: ReleasePlan, index: number): 'done' | 'current' | 'next' {
  if (plan.current === null || index > plan.current) return 'next';
  return index === plan.current && plan.status !== 'completed' ? 'current' : 'done';
}

/**
 * The flag's release plan in the open environment (docs/releases.md) as a timeline: its
 * milestones, the one running and when the next step is due, its guards' last readings, who did
 * what, and why it stopped or holds. Editors pause, resume, proceed and roll back here.
 */
export function ReleasePlanSection({ editor }: { editor: FlagEditor }) {
  const { project } = useProject();
  const { flag, environment, mayEdit, generation } = editor;
  const path = `/projects/${enc(project.id)}/flags/${enc(flag.key)}/environments/${enc(environment)}/release-plan`;
  const loaded = useApi<ReleasePlan>(path);
  useReloadOnSave(generation, loaded.reload);
  const environmentName = useEnvironmentNames()(environment);
  const plan = loaded.data;
  const moved = () => {
    loaded.reload();
    editor.requested();
  };

  return (
    <section className="panel" aria-labelledby="release-plan-title">
      <h2 id="release-plan-title">Release plan in {environmentName}</h2>
      {loaded.error?.status === 404 && (
        <p className="muted">
          No release plan in {environmentName}. Plans are made from a template or milestones over the API
          (docs/releases.md).
        </p>
      )}
      {loaded.error && loaded.error.status !== 404 && (
        <LoadError error={loaded.error} retry={loaded.reload} />
      )}
      {plan && (
        <>
          <PlanState plan={plan} />
          <Milestones plan={plan} />
          {plan.guards.length > 0 && <GuardReadings plan={plan} />}
          <PlanMoves plan={plan} path={path} mayEdit={mayEdit} onMoved={moved} />
          <PlanEvents plan={plan} />
        </>
      )}
    </section>
  );
}

/** What the plan releases, where it stands, when it next steps, and why it holds or stopped. */
function PlanState({ plan }: { plan: ReleasePlan }) {
  return (
    <>
      <p>
        <span className={`badge release-${plan.status}`}>{STATUS_WORDS[plan.status]}</span> Releasing{' '}
        <strong>{plan.treatment}</strong> over <strong>{plan.control}</strong>
        {plan.template && <span className="muted"> · from template {plan.template}</span>}
      </p>
      {plan.nextStep && (
        <p>
          Next step due <Time at={plan.nextStep.at} />
        </p>
      )}
      {plan.holding && (
        <p className="notice" role="status">
          {plan.holding}
        </p>
      )}
      {plan.stopReason && (plan.status === 'paused' || plan.status === 'rolled_back') && (
        <p className="notice" role="status">
          Stopped: {plan.stopReason}
        </p>
      )}
    </>
  );
}

/** The milestones as a timeline: the share released at each, how long it holds, which is now. */
function Milestones({ plan }: { plan: ReleasePlan }) {
  return (
    <ol className="release-timeline" aria-label="Milestones">
      {plan.milestones.map((milestone, index) => {
        const stage = stageOf(plan, index);
        return (
          <li
            // The released share rises from one milestone to the next: it tells them apart.
            key={shareOf(milestone, plan)}
            className={`milestone ${stage}`}
            aria-current={stage === 'current' ? 'step' : undefined}
          >
            <strong>{milestone.name}</strong> <span>{shareOf(milestone, plan)}</span>{' '}
            <span className="muted">{holdOf(milestone)}</span>
            {stage === 'current' && <span className="badge">{HERE[plan.status] ?? 'now'}</span>}
            {stage === 'done' && <span className="visually-hidden"> (done)</span>}
          </li>
        );
      })}
    </ol>
  );
}

/** An editor's buttons for the moves the plan may make now, and what the API said to one. */
function PlanMoves({
  plan,
  path,
  mayEdit,
  onMoved,
}: {
  plan: ReleasePlan;
  path: string;
  mayEdit: boolean;
  onMoved: () => void;
}) {
  const { problem, busy, run } = useSubmission();
  const move = (which: Move) =>
    run(async () => {
      const answer = await api<ReleasePlan | { kind: string }>('POST', `${path}/${which}`, {});
      toast(
        'kind' in answer
          ? 'The start waits for approval: a change request was made.'
          : `Release plan: ${STATUS_WORDS[(answer as ReleasePlan).status].toLowerCase()}.`,
      );
      onMoved();
    });
  const moves = movesOf(plan);
  return (
    <>
      {mayEdit && moves.length > 0 && (
        <div className="row">
          {moves.map((which) => (
            <button
              key={which}
              type="button"
              className={`btn ${which === 'rollback' ? 'danger' : which === 'start' ? 'primary' : ''}`}
              disabled={busy}
              onClick={() => void move(which)}
            >
              {MOVE_WORDS[which]}
            </button>
          ))}
        </div>
      )}
      <ErrorSummary problem={problem} />
    </>
  );
}

/** Each guard's last look: what it read against what, or why it cannot be read. */
function GuardReadings({ plan }: { plan: ReleasePlan }) {
  return (
    <StackingTable caption="Guards" headers={['Guard', 'Last read', 'Reading']}>
      {plan.guards.map((guard) => {
        const reading = plan.readings.find((r) => r.guard === guard.name);
        return (
          <tr key={guard.name}>
            <td data-label="Guard">
              {guard.name}
              <div className="muted">{guard.kind === 'metric' ? `metric ${guard.metric}` : 'Prometheus'}</div>
            </td>
            <td data-label="Last read">
              <Time at={reading?.at} never="Not yet" />
            </td>
            <td data-label="Reading">
              {reading ? (
                <>
                  <span className={`badge guard-${reading.status}`}>{reading.status}</span> {reading.message}
                  <GuardBar figures={reading.figures} />
                  <GuardChart plan={plan} guard={guard.name} />
                </>
              ) : (
                <span className="muted">Read when the milestone begins</span>
              )}
            </td>
          </tr>
        );
      })}
    </StackingTable>
  );
}

/** A Prometheus reading as bars: the new variant's value, the control's, the threshold. */
function GuardBar({ figures }: { figures: Readonly<Record<string, number>> }) {
  const shown = (['treatment', 'control', 'threshold'] as const).filter((k) => Number.isFinite(figures[k]));
  if (shown.length < 2) return null;
  const top = Math.max(...shown.map((k) => figures[k] as number), Number.MIN_VALUE);
  return (
    <dl className="guard-bars">
      {shown.map((k) => (
        <div key={k} className={`guard-bar ${k}`}>
          <dt>{k === 'treatment' ? 'new variant' : k}</dt>
          <dd>
            <span className="bar" style={{ width: `${((figures[k] as number) / top) * 100}%` }} />
            <span>{Math.round((figures[k] as number) * 10_000) / 10_000}</span>
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** The figures a guard's chart follows: a Prometheus guard's values, a metric guard's effect and bound. */
const CHARTED = ['treatment', 'control', 'threshold', 'effect', 'bound'] as const;
const CHART = { width: 240, height: 64, pad: 4 };

/** A guard's looks over time, each figure a line: what moved it to breach, or how close it came. */
function GuardChart({ plan, guard }: { plan: ReleasePlan; guard: string }) {
  const looks = [...plan.history, ...plan.readings].filter(
    (r) => r.guard === guard && r.status !== 'unreadable',
  );
  const series = CHARTED.filter((k) => looks.filter((r) => Number.isFinite(r.figures[k])).length >= 2);
  if (series.length === 0) return null;
  const values = series.flatMap((k) =>
    looks.map((r) => r.figures[k]).filter((v): v is number => Number.isFinite(v)),
  );
  const [low, high] = [Math.min(0, ...values), Math.max(...values)];
  const span = high - low || 1;
  const x = (i: number) => CHART.pad + (i / Math.max(1, looks.length - 1)) * (CHART.width - 2 * CHART.pad);
  const y = (v: number) => CHART.height - CHART.pad - ((v - low) / span) * (CHART.height - 2 * CHART.pad);
  const last = looks[looks.length - 1];
  const summary = series
    .map((k) => `${k === 'treatment' ? 'new variant' : k} ${last?.figures[k] ?? '–'}`)
    .join(', ');
  return (
    <figure className="guard-chart">
      <svg
        viewBox={`0 0 ${CHART.width} ${CHART.height}`}
        role="img"
        aria-label={`${guard} over its last ${looks.length} looks; now ${summary}`}
      >
        {series.map((k) => (
          <polyline
            key={k}
            className={`series-${k}`}
            fill="none"
            points={looks
              .map((r, i) => (Number.isFinite(r.figures[k]) ? `${x(i)},${y(r.figures[k] as number)}` : ''))
              .filter(Boolean)
              .join(' ')}
          />
        ))}
      </svg>
      <figcaption>
        {series.map((k) => (
          <span key={k} className={`legend series-${k}`}>
            {k === 'treatment' ? 'new variant' : k}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

/** The timeline: who did what, when, and why. */
function PlanEvents({ plan }: { plan: ReleasePlan }) {
  const words = (action: string) => action.replaceAll('_', ' ');
  return (
    <StackingTable caption="Timeline" headers={['When', 'What', 'Who']}>
      {[...plan.events].reverse().map((event) => (
        <tr key={`${event.at} ${event.action} ${event.by.id}`}>
          <td data-label="When">
            <Time at={event.at} />
          </td>
          <td data-label="What">
            {words(event.action)}
            {event.milestone !== undefined &&
              ` to ${plan.milestones[event.milestone]?.name ?? event.milestone}`}
            {event.reason && <div className="muted">{event.reason}</div>}
          </td>
          <td data-label="Who">{event.by.name}</td>
        </tr>
      ))}
    </StackingTable>
  );
}
