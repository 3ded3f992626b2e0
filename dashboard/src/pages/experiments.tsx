import { useState } from 'react';
import { api, type Experiment, enc, type Flag, type Metric, useApi, usePage } from '../api.ts';
import { CreateDialog, useForm } from '../kit/dialogs.tsx';
import {
  CheckboxChoices,
  ChoiceField,
  type FieldSource,
  type FormPartProps,
  InlineError,
  KeyAndName,
  RadioField,
} from '../kit/field.tsx';
import { Pager } from '../kit/pager.tsx';
import { itemsOf, nameColumn, ResourceTable } from '../kit/resource-table.tsx';
import { useProject } from '../project.ts';
import { navigate } from '../router.tsx';
import { Empty, Time, toast } from '../ui.tsx';
import { EnvironmentField } from './environment-field.tsx';
import { FlagPicker } from './flag-picker.tsx';
import { ListPageTitle } from './list-page-title.tsx';

/** A project's experiments, key order, and the form that sets one up. */
export function ExperimentsPage() {
  const { project } = useProject();
  const experiments = usePage<Experiment>(`/projects/${enc(project.id)}/experiments?limit=100`);
  const [creating, setCreating] = useState(false);
  return (
    <>
      <ListPageTitle newLabel="New experiment" creating={creating} setCreating={setCreating}>
        Experiments
      </ListPageTitle>
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
          nameColumn('Experiment', (e) => `/projects/${enc(project.key)}/experiments/${enc(e.key)}`),
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

/**
 * One of a list chosen first, then any of the rest ticked beside it: the control and the
 * treatments among a flag's variants, the primary and the secondary metrics among the project's.
 * Choosing the one takes it out of the others.
 */
interface OneAndOthers {
  one: string;
  others: string[];
}

const NONE_YET: OneAndOthers = { one: '', others: [] };

/** The setup form: the flag and its variants, the metrics, the analysis; created as a draft. */
function SetUpExperiment({ onCancel }: { onCancel: () => void }) {
  const { project, environments } = useProject();
  const form = useForm<Draft>({ key: '', name: '', method: 'frequentist', sequential: false, cuped: false });
  const [flagKey, setFlagKey] = useState('');
  const [environment, setEnvironment] = useState(environments.at(-1)?.key ?? 'production');
  const [arms, setArms] = useState(NONE_YET);
  const [metrics, setMetrics] = useState(NONE_YET);
  const { key, name, method, sequential, cuped } = form.values;

  const submit = () =>
    form.run(async () => {
      const made = await api<Experiment>('POST', `/projects/${enc(project.id)}/experiments`, {
        key,
        ...(name ? { name } : {}),
        flag: flagKey,
        environment,
        control: arms.one,
        treatments: arms.others,
        metrics: { primary: metrics.one, secondary: metrics.others },
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
            setArms(NONE_YET);
          }}
        />
        <EnvironmentField problem={form.problem} value={environment} onChange={setEnvironment} />
      </div>
      <ArmsChoice flagKey={flagKey} value={arms} onChange={setArms} problem={form.problem} />
      <MetricsChoice value={metrics} onChange={setMetrics} problem={form.problem} />
      <AnalysisChoice form={form} />
    </CreateDialog>
  );
}

/** The control and the treatments, among the chosen flag's variants (none before a flag is chosen). */
function ArmsChoice({ flagKey, ...part }: FormPartProps<OneAndOthers> & { flagKey: string }) {
  const { project } = useProject();
  const flag = useApi<Flag>(flagKey ? `/projects/${enc(project.id)}/flags/${enc(flagKey)}` : null);
  const variants = flag.data?.variants.map((v) => v.key) ?? [];
  if (variants.length === 0) return null;
  return <OneAndOthersChoice {...part} words={ARMS_WORDS} choices={variants.map((v) => [v, v, v])} />;
}

/** The primary metric among the project's, and the secondary ones. */
function MetricsChoice(part: FormPartProps<OneAndOthers>) {
  const { project } = useProject();
  const metrics = useApi<Metric[]>(`/projects/${enc(project.id)}/metrics?limit=1000`).data ?? [];
  const choices = metrics.map((m) => [m.key, `${m.name} (${m.kind})`, m.name] as const);
  return <OneAndOthersChoice {...part} words={METRICS_WORDS} choices={choices} />;
}

/** What a OneAndOthersChoice says: the one's label, path and prompt; the others' legend and path. */
interface OneAndOthersWords {
  label: string;
  path: string;
  prompt: string;
  legend: string;
  othersPath?: string;
}

const ARMS_WORDS: OneAndOthersWords = {
  label: 'Control',
  path: '/control',
  prompt: 'Choose the control',
  legend: 'Treatments',
  othersPath: '/treatments/0',
};
const METRICS_WORDS: OneAndOthersWords = {
  label: 'Primary metric',
  path: '/metrics/primary',
  prompt: 'Choose a metric',
  legend: 'Secondary metrics',
};

/**
 * A select for the one and a checkbox for each of the others; each choice is its value, its text
 * in the select and its text among the checkboxes.
 */
function OneAndOthersChoice({
  value: { one, others },
  onChange,
  problem,
  words,
  choices,
}: FormPartProps<OneAndOthers> & {
  words: OneAndOthersWords;
  choices: readonly (readonly [value: string, text: string, textAmongOthers: string])[];
}) {
  return (
    <div className="row">
      <ChoiceField
        label={words.label}
        path={words.path}
        problem={problem}
        value={one}
        choices={[['', words.prompt], ...choices.map(([value, text]) => [value, text] as const)]}
        onChange={(chosen) => onChange({ one: chosen, others: others.filter((o) => o !== chosen) })}
      />
      <fieldset className="field">
        <legend>{words.legend}</legend>
        <CheckboxChoices
          choices={choices.filter(([value]) => value !== one).map(([value, , text]) => [value, text])}
          chosen={others}
          onChange={(chosen) => onChange({ one, others: chosen })}
        />
        {words.othersPath && <InlineError problem={problem} path={words.othersPath} />}
      </fieldset>
    </div>
  );
}

/** How the results are computed: the method, and the options that narrow or guard them. */
function AnalysisChoice({ form }: { form: FieldSource<Draft> }) {
  const { method, sequential, cuped } = form.values;
  return (
    <>
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
    </>
  );
}
