import { type FormEvent, useEffect, useState } from 'react';
import { ApiError } from '../api.ts';
import { ErrorSummary, type FormPartProps, RadioChoices, VerbatimField } from '../kit/field.tsx';
import { ContextJsonField } from './context-json-field.tsx';
import { EnvironmentField } from './environment-field.tsx';
import {
  type AttributeRow,
  type Context,
  contextOfJson,
  contextOfRows,
  newRow,
  type Parsed,
  rowsOfContext,
} from './user-context.ts';

type Mode = 'rows' | 'json';

const MODES = [
  ['rows', 'Key and attribute rows'],
  ['json', 'JSON'],
] as const;

const unreadable = (parsed: Parsed): ApiError | undefined =>
  'errors' in parsed
    ? new ApiError(400, { detail: 'The context cannot be read.', errors: [...parsed.errors] })
    : undefined;

/** What the form holds for a context: the key and rows, and the same as JSON. */
type Typed = ReturnType<typeof typedOf>;

function typedOf(context: Context | undefined) {
  const { targetingKey, rows } = rowsOfContext(context ?? {});
  return {
    targetingKey,
    rows: rows.length > 0 ? rows : [newRow()],
    json: JSON.stringify(context ?? { targetingKey: '' }, null, 2),
  };
}

/**
 * The user to show: an environment, and the context typed as a targeting key with attribute rows
 * or as JSON. It follows the page's address (Back, a shared link) and reports a context it
 * cannot read beside the field at fault, sending nothing.
 */
export function UserContextForm({
  environment,
  context,
  onShow,
}: {
  environment: string;
  context: Context | undefined;
  onShow: (environment: string, context: Context) => void;
}) {
  const [chosen, setChosen] = useState(environment);
  const [mode, setMode] = useState<Mode>('rows');
  const [typed, setTyped] = useState(() => typedOf(context));
  const [problem, setProblem] = useState<ApiError>();
  const asked = JSON.stringify(context);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `asked` stands for `context`
  useEffect(() => {
    setChosen(environment);
    setTyped(typedOf(context));
    setProblem(undefined);
  }, [environment, asked]);

  const parsed = (): Parsed =>
    mode === 'rows' ? contextOfRows(typed.targetingKey, typed.rows) : contextOfJson(typed.json);

  const switchTo = (next: Mode) => {
    const current = parsed();
    setProblem(unreadable(current));
    // A context that cannot be read stays as typed, in the mode it was typed in.
    if ('context' in current) {
      setTyped(typedOf(current.context));
      setMode(next);
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const current = parsed();
    setProblem(unreadable(current));
    if ('context' in current) onShow(chosen, current.context);
  };

  return (
    <form className="panel" onSubmit={submit} noValidate aria-label="User">
      <ErrorSummary problem={problem} />
      <div className="row">
        <EnvironmentField problem={problem} value={chosen} onChange={setChosen} />
        <fieldset className="radio-row">
          <legend>Type the user as</legend>
          <RadioChoices name="context-mode" value={mode} choices={MODES} onChange={switchTo} />
        </fieldset>
      </div>
      <TypedContext mode={mode} value={typed} onChange={setTyped} problem={problem} />
      <button type="submit" className="btn primary">
        Show flags
      </button>
    </form>
  );
}

/** The context as typed in the chosen mode: a targeting key with attribute rows, or JSON. */
function TypedContext({ mode, value: typed, onChange, problem }: FormPartProps<Typed> & { mode: Mode }) {
  if (mode === 'json')
    return (
      <ContextJsonField
        label="Context (JSON)"
        path="/context"
        problem={problem}
        value={typed.json}
        onChange={(json) => onChange({ ...typed, json })}
      />
    );
  return (
    <>
      <VerbatimField
        label="Targeting key"
        path="/targetingKey"
        problem={problem}
        hint="The user's identity: what individual targets list and rollouts split by."
        value={typed.targetingKey}
        onChange={(targetingKey) => onChange({ ...typed, targetingKey })}
      />
      <AttributeRows rows={typed.rows} problem={problem} onChange={(rows) => onChange({ ...typed, rows })} />
    </>
  );
}

/** The user's attributes, one name and value a row; rows are added and removed as needed. */
function AttributeRows({
  rows,
  problem,
  onChange,
}: {
  rows: readonly AttributeRow[];
  problem: ApiError | undefined;
  onChange: (rows: AttributeRow[]) => void;
}) {
  const change = (id: number, patch: Partial<AttributeRow>) =>
    onChange(rows.map((row) => (row.id === id ? { ...row, ...patch } : row)));
  return (
    <fieldset className="attribute-rows">
      <legend>Attributes</legend>
      <p className="hint">
        Numbers, true and false are sent as such; put text in "quotes" to send it as text.
      </p>
      <ol>
        {rows.map((row, i) => (
          <li key={row.id} className="row">
            <VerbatimField
              label={`Attribute ${i + 1}`}
              path={`/attributes/${i}/name`}
              problem={problem}
              value={row.name}
              onChange={(name) => change(row.id, { name })}
            />
            <VerbatimField
              label={`Value of attribute ${i + 1}`}
              path={`/attributes/${i}/value`}
              problem={problem}
              value={row.value}
              onChange={(value) => change(row.id, { value })}
            />
            <button
              type="button"
              className="btn subtle"
              onClick={() => onChange(rows.filter((r) => r.id !== row.id))}
            >
              Remove<span className="visually-hidden"> attribute {i + 1}</span>
            </button>
          </li>
        ))}
      </ol>
      <button type="button" className="btn" onClick={() => onChange([...rows, newRow()])}>
        Add attribute
      </button>
    </fieldset>
  );
}
