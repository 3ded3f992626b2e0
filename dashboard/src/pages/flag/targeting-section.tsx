import { Field, fieldId, InlineError } from '../../kit/field.tsx';
import { useEnvironmentNames, useProject } from '../../project.ts';
import { isProtected } from '../../protected.tsx';
import { Switch, Tabs } from '../../ui.tsx';
import { TargetingProblem } from '../targeting-problem.tsx';
import { type EnvironmentDraft, newRuleDraft, same, targetEntries } from './draft.ts';
import { RuleEditor } from './rule-editor.tsx';
import { RunningExperimentNotice } from './running-experiment-notice.tsx';
import { ServeEditor, VariantOptions } from './serve-editor.tsx';
import type { FlagEditor } from './use-flag-editor.ts';

/** What each part of the open environment's panel works on: the editor, that environment's draft, and where its errors point. */
interface PanelPart {
  readonly editor: FlagEditor;
  readonly current: EnvironmentDraft;
  /** `/environments/<key>`: the API's errors for this environment start with it. */
  readonly base: string;
}

/** Per environment: the switch, the off variant, individual targets, rules and the default. */
export function TargetingSection({ editor }: { editor: FlagEditor }) {
  const { environment } = editor;
  const current = editor.draft.environments[environment];
  const part = current && { editor, current, base: `/environments/${environment}` };
  return (
    <section className="panel" aria-labelledby="targeting-title">
      <h2 id="targeting-title">Targeting</h2>
      <EnvironmentTabs editor={editor} />
      {part && (
        <div role="tabpanel" id="env-panel" aria-labelledby={`env-tab-${environment}`} className="tab-panel">
          <RunningExperimentNotice flagKey={editor.flag.key} environment={environment} />
          <EnvironmentSwitch {...part} />
          <OffVariant {...part} />
          {part.current.targeting !== undefined ? (
            <JsonLogicTargeting {...part} />
          ) : (
            <>
              <IndividualTargets {...part} />
              <Rules {...part} />
            </>
          )}
          <DefaultServe {...part} />
        </div>
      )}
    </section>
  );
}

/** One tab per environment: its name, protected or not, on or off, and whether it holds edits. */
function EnvironmentTabs({ editor }: { editor: FlagEditor }) {
  const { environments } = useProject();
  const { draft, initial } = editor;
  return (
    <Tabs
      label="Environment"
      idPrefix="env"
      selected={editor.environment}
      onSelect={editor.openEnvironment}
      tabs={editor.environmentKeys.map((k) => {
        const edited = !same(draft.environments[k], initial.environments[k]);
        const env = environments.find((e) => e.key === k);
        return {
          key: k,
          label: (
            <>
              {env?.name ?? k}{' '}
              {env && isProtected(env) && (
                <span className="badge protected" title="Protected: saving asks first">
                  protected
                </span>
              )}{' '}
              <span className={`dot ${draft.environments[k]?.enabled ? 'on' : ''}`} aria-hidden="true" />
              {edited && <span className="visually-hidden"> (edited)</span>}
              {edited && <span aria-hidden="true"> •</span>}
            </>
          ),
        };
      })}
    />
  );
}

/** The open environment's name, as people know it. */
function useEnvironmentName(editor: FlagEditor): string {
  return useEnvironmentNames()(editor.environment);
}

/** Serving on or off in this environment, and what that means in words. */
function EnvironmentSwitch({ editor, current, base }: PanelPart) {
  const name = useEnvironmentName(editor);
  return (
    <div className="env-switch">
      <Switch
        id={fieldId(`${base}/enabled`)}
        checked={current.enabled}
        disabled={!editor.mayEdit}
        label={`Serve ${editor.flag.name} in ${name}`}
        onChange={(enabled) => editor.changeEnvironment({ enabled })}
      />
      <span>
        {current.enabled
          ? `On in ${name}: targets, rules and the default below decide.`
          : `Off in ${name}: everyone gets the off variant.`}
      </span>
    </div>
  );
}

/** What everyone gets while the flag is off here. */
function OffVariant({ editor, current, base }: PanelPart) {
  return (
    <Field label="When off, serve" path={`${base}/offVariant`} problem={editor.problem}>
      {(props) => (
        <select
          {...props}
          value={current.offVariant}
          onChange={(e) => editor.changeEnvironment({ offVariant: e.target.value })}
        >
          <option value="">No value (null)</option>
          <VariantOptions variants={editor.draft.variants} />
        </select>
      )}
    </Field>
  );
}

/** Imported flagd targeting, shown as it is: it is changed by importing again, not here. */
function JsonLogicTargeting({ editor, current }: PanelPart) {
  return (
    <div className="notice">
      <p>
        This environment uses flagd JsonLogic targeting (imported). It is shown here as it is; import a new
        definition to change it.
      </p>
      <pre>{JSON.stringify(current.targeting, null, 2)}</pre>
      <TargetingProblem flag={editor.flag} environment={editor.environment} />
    </div>
  );
}

/** Users listed by targetingKey per variant, served before any rule; open when there are some or an error. */
function IndividualTargets({ editor, current, base }: PanelPart) {
  const { problem, draft } = editor;
  const targets = targetEntries(current.targets, draft.variants);
  const count = targets.reduce((n, t) => n + t.values.length, 0);
  const failed = problem?.errors.some((e) => e.path.startsWith(`${base}/targets`)) ?? false;
  return (
    <details className="targets-box" open={count > 0 || failed}>
      <summary>
        <h3>
          Individual targets{' '}
          <span className="muted">
            ({count} {count === 1 ? 'user' : 'users'})
          </span>
        </h3>
      </summary>
      <p className="muted small">
        Users whose targetingKey is listed get that variant before any rule. One per line.
      </p>
      <div className="targets">
        {draft.variants.map((v) => {
          const index = targets.findIndex((t) => t.variant === v.key);
          return (
            <Field
              key={v.id}
              label={`Serve ${v.key || 'the unnamed variant'} to`}
              path={`${base}/targets/${index < 0 ? `new-${v.id}` : index}/values`}
              problem={problem}
            >
              {(props) => (
                <textarea
                  {...props}
                  rows={2}
                  value={current.targets[v.id] ?? ''}
                  spellCheck={false}
                  onChange={(e) =>
                    editor.changeEnvironment({ targets: { ...current.targets, [v.id]: e.target.value } })
                  }
                />
              )}
            </Field>
          );
        })}
      </div>
    </details>
  );
}

/** The rules in order (the first that matches decides): edit, move, remove, add. */
function Rules({ editor, current, base }: PanelPart) {
  const { problem, draft, changeEnvironment } = editor;
  const { rules } = current;
  const move = (from: number, to: number) => {
    const moved = [...rules];
    const [rule] = moved.splice(from, 1);
    if (rule) moved.splice(to, 0, rule);
    changeEnvironment({ rules: moved });
  };
  return (
    <>
      <h3>Rules</h3>
      <p className="muted small">Checked in order; the first rule that matches decides.</p>
      <InlineError problem={problem} path={`${base}/rules`} />
      <ol className="rules">
        {rules.map((rule, i) => (
          <RuleEditor
            key={rule.uid}
            rule={rule}
            index={i}
            count={rules.length}
            path={`${base}/rules/${i}`}
            variants={draft.variants}
            problem={problem}
            onChange={(next) => changeEnvironment({ rules: rules.map((r, j) => (j === i ? next : r)) })}
            onMove={(to) => move(i, to)}
            onRemove={() => changeEnvironment({ rules: rules.filter((_, j) => j !== i) })}
          />
        ))}
      </ol>
      {editor.mayEdit && (
        <button
          type="button"
          className="btn"
          onClick={() => changeEnvironment({ rules: [...rules, newRuleDraft(draft.variants)] })}
        >
          Add rule
        </button>
      )}
    </>
  );
}

/** What is served when the flag is on and no target or rule decided: a variant or a rollout. */
function DefaultServe({ editor, current, base }: PanelPart) {
  return (
    <>
      <h3>Default</h3>
      <p className="muted small">Served when the flag is on and no target or rule decided.</p>
      <ServeEditor
        serve={current.fallback}
        variants={editor.draft.variants}
        path={base}
        variantPath={`${base}/defaultVariant`}
        rolloutPath={`${base}/defaultRollout`}
        problem={editor.problem}
        legend="Default"
        onChange={(fallback) => editor.changeEnvironment({ fallback })}
      />
    </>
  );
}
