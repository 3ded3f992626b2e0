import { type FormEvent, useMemo, useState } from 'react';
import type { Flag, FlagEnvironment } from '../../../src/domain/flag.ts';
import { ApiError, api, type Explanation, enc, type FlagSummary, useApi } from '../api.ts';
import { ErrorSummary } from '../kit/field.tsx';
import { primaryEnvironment } from '../primary-environment.ts';
import { useProject } from '../project.ts';
import { Link } from '../router.tsx';
import { LoadError, Loading, PageTitle } from '../ui.tsx';
import { ContextJsonField } from './context-json-field.tsx';
import { DecidedBy, REASON_WORDS } from './decided-by.tsx';
import { EnvironmentField } from './environment-field.tsx';
import { FlagPicker } from './flag-picker.tsx';
import { type Context, isObject } from './user-context.ts';

/** Evaluate a flag for made-up attributes and see which rule decided. */
export function PlaygroundPage() {
  const { project } = useProject();
  // The first flag is chosen to begin with; the picker finds the others (docs/decisions/1842).
  const first = useApi<FlagSummary[]>(`/projects/${enc(project.id)}/flags?limit=1`);
  if (first.error) return <LoadError error={first.error} retry={first.reload} />;
  if (!first.data) return <Loading what="flags" />;
  return (
    <>
      <PageTitle>Playground</PageTitle>
      <p className="muted">
        Evaluate a flag as an application would, for the attributes you type, and see why.
      </p>
      {first.data[0] === undefined ? (
        <p>
          There are no flags to evaluate yet.{' '}
          <Link to={`/projects/${enc(project.key)}/flags`}>Create one.</Link>
        </p>
      ) : (
        <Playground firstFlag={first.data[0].key} />
      )}
    </>
  );
}

/** What an evaluation answered, with the flag as it was then and the environment asked about. */
interface Result {
  explanation: Explanation;
  flag: Flag;
  environment: string;
}

const NOT_AN_OBJECT = {
  detail: 'The attributes are not a JSON object.',
  errors: [{ path: '/attributes', message: 'must be a JSON object, e.g. {"targetingKey": "user-1"}' }],
};

/** The attributes typed, when they are a JSON object. */
function attributesOf(text: string): Context | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The form (a flag, an environment, the attributes) beside the result of its last evaluation. */
function Playground({ firstFlag }: { firstFlag: string }) {
  const { project, environments } = useProject();
  const [flagKey, setFlagKey] = useState(firstFlag);
  const [environment, setEnvironment] = useState(primaryEnvironment(environments)?.key ?? '');
  const [attributes, setAttributes] = useState('{\n  "targetingKey": "user-1",\n  "country": "NL"\n}');
  const [result, setResult] = useState<Result>();
  const [problem, setProblem] = useState<ApiError>();

  const evaluate = async (event: FormEvent) => {
    event.preventDefault();
    setProblem(undefined);
    const parsed = attributesOf(attributes);
    // A failure leaves no result: the last was for other attributes, and must not look like the answer to these.
    if (parsed === undefined) {
      setResult(undefined);
      return setProblem(new ApiError(400, NOT_AN_OBJECT));
    }
    const path = `/projects/${enc(project.id)}/flags/${enc(flagKey)}`;
    try {
      const [explanation, flag] = await Promise.all([
        api<Explanation>('POST', `${path}/explain`, { environment, attributes: parsed }),
        api<Flag>('GET', path),
      ]);
      setResult({ explanation, flag, environment });
    } catch (e) {
      setResult(undefined);
      setProblem(e as ApiError);
    }
  };

  return (
    <div className="playground">
      <form className="panel" onSubmit={evaluate} noValidate aria-label="Evaluation input">
        <ErrorSummary problem={problem} />
        <div className="row">
          <FlagPicker
            path="/flag"
            problem={problem}
            value={flagKey}
            onChoose={(flag) => setFlagKey(flag.key)}
          />
          <EnvironmentField problem={problem} value={environment} onChange={setEnvironment} />
        </div>
        <ContextJsonField
          label="Attributes (JSON)"
          path="/attributes"
          problem={problem}
          value={attributes}
          onChange={setAttributes}
        />
        <button type="submit" className="btn primary">
          Evaluate
        </button>
      </form>
      <section className="panel result" aria-labelledby="result-title" aria-live="polite">
        <h2 id="result-title">Result</h2>
        {result ? <Outcome {...result} /> : <p className="muted">Evaluate to see the value and why.</p>}
      </section>
    </div>
  );
}

function Outcome({ explanation, flag, environment }: Result) {
  const { project } = useProject();
  const config: FlagEnvironment | undefined = flag.environments[environment];
  const ruleIndex = useMemo(
    () => config?.rules.findIndex((r) => r.id === explanation.ruleId) ?? -1,
    [config, explanation.ruleId],
  );
  const rule = ruleIndex >= 0 ? config?.rules[ruleIndex] : undefined;
  return (
    <>
      {explanation.ofrepErrorCode === 'TARGETING_KEY_MISSING' && (
        <div className="notice" role="note">
          <p>
            <strong>OFREP answers differently:</strong> it returns the error{' '}
            <code>TARGETING_KEY_MISSING</code> for these attributes, and the application gets its own default
            value. The flag splits users by targetingKey and the attributes have none; add a{' '}
            <code>targetingKey</code> to see the variant a user would get.
          </p>
        </div>
      )}
      <dl className="outcome">
        <dt>Value</dt>
        <dd>
          <code className="value">{JSON.stringify(explanation.value)}</code>
        </dd>
        <dt>Variant</dt>
        <dd>{explanation.variant ?? <span className="muted">none</span>}</dd>
        <dt>Reason</dt>
        <dd>
          <code>{explanation.reason}</code> — {REASON_WORDS[explanation.reason] ?? ''}
        </dd>
        <dt>Decided by</dt>
        <dd>
          <DecidedBy decision={{ ...explanation, rule: rule && { ...rule, number: ruleIndex + 1 } }} />
          {' · '}
          <Link to={`/projects/${enc(project.key)}/flags/${enc(flag.key)}`}>open the flag</Link>
        </dd>
      </dl>
    </>
  );
}
