import { useState } from 'react';
import { api, type Experiment, enc, type Flag, type Metric, useApi, usePage } from '../api.ts';
import { CreateDialog, OpenButton, useForm } from '../kit/dialogs.tsx';
import { ChoiceField, InlineError, KeyAndName, RadioField } from '../kit/field.tsx';
import { Pager } from '../kit/pager.tsx';
import { itemsOf, ResourceTable } from '../kit/resource-table.tsx';
import { useProject } from '../project.ts';
import { Link, navigate } from '../router.tsx';
import { can, useSession } from '../session.ts';
import { Empty, PageTitle, Time, toast } from '../ui.tsx';
import { EnvironmentField } from './environment-field.tsx';
import { FlagPicker } from './flag-picker.tsx';

/** A project's experiments, key order, and the form that sets one up. */
export function ExperimentsPage() {
  const { project } = useProject();
  const { me } = useSession();
  const experiments = usePage<Experiment>(`/projects/${enc(project.id)}/experiments?limit=100`);
  const [creating, setCreating] = useState(false);
  const mayEdit = can(me, 'editor', project);
  return (
    <>
      <PageTitle
        actions={mayEdit && <OpenButton label="New experiment" open={creating} setOpen={setCreating} />}
      >
        Experiments
      </PageTitle>
      <p className="muted">
        A flag’s variants compared on metrics: set one up as a draft, start it, and read its results.
      </p>
      {creating && <SetUpExperiment onCancel={() => setCreating(false)} />}
      <ResourceTable
        caption="Experiments"
        of={itemsOf(experiments)}
        empty={
          <Empty title="No experiments yet">
            <p>An experiment needs a flag with two variants or more, and a metric to compare them on.</p>
          </Empty>
        }
        columns={[
          {
            header: 'Experiment',
            cell: (e) => (
              <>
                <Link to={`/projects/${enc(project.key)}/experiments/${enc(e.key)}`} className="strong">
                  {e.name}
                </Link>
                <div className="muted small">
                  <code>{e.key}</code>
                </div>
              </>
            ),
          },
          { header: 'Status', cell: (e) => <span className={`badge status-${e.status}`}>{e.status}</span> },
          {
            header: 'Flag and environment',
            cell: (e) => (
              <>
                <code>{e.flag}</code> in {e.environment}
              </>
            ),
          },
          { header: 'Primary metric', cell: (e) => <code>{e.metrics.primary}</code> },
          { header: 'Started', cell: (e) => <Time at={e.startedAt} never="Not yet" /> },
        ]}
      />
      <Pager page={experiments.data} what="experiments" />
    </>
  );
}

interface Draft {
  key: string;
  name: string;
  method: 'frequentist' | 'bayesian';
  sequential: boolean;
  cuped: boolean;
}

/** The setup form: the flag and its variants, the metrics, the analysis; created as a draft. */
function SetUpExperiment({ onCancel }: { onCancel: () => void }) {
  const { project, environments } = useProject();
  const form = useForm<Draft>({ key: '', name: '', method: 'frequentist', sequential: false, cuped: false });
  const [flagKey, setFlagKey] = useState('');
  const [environment, setEnvironment] = useState(environments.at(-1)?.key ?? 'production');
  const [control, setControl] = useState('');
  const [treatments, setTreatments] = useState<string[]>([]);
  const [primary, setPrimary] = useState('');
  const [secondary, setSecondary] = useState<string[]>([]);
  const flag = useApi<Flag>(flagKey ? `/projects/${enc(project.id)}/flags/${enc(flagKey)}` : null);
  const metrics = useApi<Metric[]>(`/projects/${enc(project.id)}/metrics?limit=1000`);
  const variants = flag.data?.variants.map((v) => v.key) ?? [];
  const toggle = (list: string[], item: string) =>
    list.includes(item) ? list.filter((x) => x !== item) : [...list, item];
  const { key, name, method, sequential, cuped } = form.values;

  const submit = () =>
    form.run(async () => {
      const made = await api<Experiment>('POST', `/projects/${enc(project.id)}/experiments`, {
        key,
        ...(name ? { name } : {}),
        flag: flagKey,
        environment,
        control,
        treatments,
        metrics: { primary, secondary: secondary.filter((m) => m !== primary) },
        analysis: { method, sequential: method === 'frequentist' && sequential },
        cuped,
      });
      toast(`Experiment ${made.name} set up as a draft.`);
      void navigate(`/projects/${enc(project.key)}/experiments/${enc(made.key)}`);
    });

  return (
    <CreateDialog what="experiment" form={form} onSubmit={submit} onCancel={onCancel} wide>
      <KeyAndName of={form} keyHint="Names it in the API, e.g. new-checkout." />
      <div className="row">
        <FlagPicker
          path="/flag"
          problem={form.problem}
          value={flagKey}
          archived={false}
          onChoose={(chosen) => {
            setFlagKey(chosen.key);
            setControl('');
            setTreatments([]);
          }}
        />
        <EnvironmentField problem={form.problem} value={environment} onChange={setEnvironment} />
      </div>
      {variants.length > 0 && (
        <div className="row">
          <ChoiceField
            label="Control"
            path="/control"
            problem={form.problem}
            value={control}
            choices={[['', 'Choose the control'], ...variants]}
            onChange={(v) => {
              setControl(v);
              setTreatments(treatments.filter((t) => t !== v));
            }}
          />
          <fieldset className="field">
            <legend>Treatments</legend>
            {variants
              .filter((v) => v !== control)
              .map((v) => (
                <label key={v} className="checkbox">
                  <input
                    type="checkbox"
                    checked={treatments.includes(v)}
                    onChange={() => setTreatments(toggle(treatments, v))}
                  />{' '}
                  {v}
                </label>
              ))}
            <InlineError problem={form.problem} path="/treatments/0" />
          </fieldset>
        </div>
      )}
      <div className="row">
        <ChoiceField
          label="Primary metric"
          path="/metrics/primary"
          problem={form.problem}
          value={primary}
          choices={[
            ['', 'Choose a metric'],
            ...(metrics.data ?? []).map((m) => [m.key, `${m.name} (${m.kind})`] as const),
          ]}
          onChange={setPrimary}
        />
        <fieldset className="field">
          <legend>Secondary metrics</legend>
          {(metrics.data ?? [])
            .filter((m) => m.key !== primary)
            .map((m) => (
              <label key={m.key} className="checkbox">
                <input
                  type="checkbox"
                  checked={secondary.includes(m.key)}
                  onChange={() => setSecondary(toggle(secondary, m.key))}
                />{' '}
                {m.name}
              </label>
            ))}
        </fieldset>
      </div>
      <fieldset className="field">
        <legend>Analysis</legend>
        <RadioField
          of={form}
          name="method"
          group="analysis-method"
          choices={[
            ['frequentist', 'Frequentist (p-values and confidence intervals)'],
            ['bayesian', 'Bayesian (chance to win and risk)'],
          ]}
        />
      </fieldset>
      <fieldset className="field">
        <legend>Options</legend>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={sequential}
            disabled={method !== 'frequentist'}
            onChange={(e) => form.set('sequential', e.target.checked)}
          />{' '}
          Sequential testing (look at the results as often as you like)
        </label>
        <label className="checkbox">
          <input type="checkbox" checked={cuped} onChange={(e) => form.set('cuped', e.target.checked)} />{' '}
          CUPED (use each unit’s behaviour before the experiment to narrow the intervals)
        </label>
        <InlineError problem={form.problem} path="/analysis/sequential" />
      </fieldset>
    </CreateDialog>
  );
}
