import { Field, fieldId, InlineError } from '../../kit/field.tsx';
import { useProject } from '../../project.ts';
import { isProtected } from '../../protected.tsx';
import { Switch, Tabs } from '../../ui.tsx';
import { TargetingProblem } from '../targeting-problem.tsx';
import { newRuleDraft, same, targetEntries } from './draft.ts';
import { RuleEditor } from './rule-editor.tsx';
import { ServeEditor, VariantOptions } from './serve-editor.tsx';
import type { FlagEditor } from './use-flag-editor.ts';

/** Per environment: the switch, the off variant, individual targets, rules and the default. */
export function TargetingSection({ editor, segments }: { editor: FlagEditor; segments: readonly string[] }) {
  const { environments } = useProject();
  const { flag, draft, initial, problem, mayEdit, environment, changeEnvironment } = editor;
  const current = draft.environments[environment];
  const base = `/environments/${environment}`;
  const named = environments.find((e) => e.key === environment);
  const environmentName = named?.name ?? environment;
  const variants = draft.variants;
  const targets = current ? targetEntries(current.targets, variants) : [];
  const targetCount = targets.reduce((n, t) => n + t.values.length, 0);
  const targetErrors = problem?.errors.some((e) => e.path.startsWith(`${base}/targets`)) ?? false;

  return (
    <section className="panel" aria-labelledby="targeting-title">
      <h2 id="targeting-title">Targeting</h2>
      <Tabs
        label="Environment"
        idPrefix="env"
        selected={environment}
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
      {current && (
        <div role="tabpanel" id="env-panel" aria-labelledby={`env-tab-${environment}`} className="tab-panel">
          <div className="env-switch">
            <Switch
              id={fieldId(`${base}/enabled`)}
              checked={current.enabled}
              disabled={!mayEdit}
              label={`Serve ${flag.name} in ${environmentName}`}
              onChange={(enabled) => changeEnvironment({ enabled })}
            />
            <span>
              {current.enabled
                ? `On in ${environmentName}: targets, rules and the default below decide.`
                : `Off in ${environmentName}: everyone gets the off variant.`}
            </span>
          </div>
          <Field label="When off, serve" path={`${base}/offVariant`} problem={problem}>
            {(props) => (
              <select
                {...props}
                value={current.offVariant}
                onChange={(e) => changeEnvironment({ offVariant: e.target.value })}
              >
                <option value="">No value (null)</option>
                <VariantOptions variants={variants} />
              </select>
            )}
          </Field>

          {current.targeting !== undefined ? (
            <div className="notice">
              <p>
                This environment uses flagd JsonLogic targeting (imported). It is shown here as it is; import
                a new definition to change it.
              </p>
              <pre>{JSON.stringify(current.targeting, null, 2)}</pre>
              <TargetingProblem flag={flag} environment={environment} />
            </div>
          ) : (
            <>
              <details className="targets-box" open={targetCount > 0 || targetErrors}>
                <summary>
                  <h3>
                    Individual targets{' '}
                    <span className="muted">
                      ({targetCount} {targetCount === 1 ? 'user' : 'users'})
                    </span>
                  </h3>
                </summary>
                <p className="muted small">
                  Users whose targetingKey is listed get that variant before any rule. One per line.
                </p>
                <div className="targets">
                  {variants.map((v) => {
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
                              changeEnvironment({ targets: { ...current.targets, [v.id]: e.target.value } })
                            }
                          />
                        )}
                      </Field>
                    );
                  })}
                </div>
              </details>

              <h3>Rules</h3>
              <p className="muted small">Checked in order; the first rule that matches decides.</p>
              <InlineError problem={problem} path={`${base}/rules`} />
              <ol className="rules">
                {current.rules.map((rule, i) => (
                  <RuleEditor
                    key={rule.uid}
                    rule={rule}
                    index={i}
                    count={current.rules.length}
                    path={`${base}/rules/${i}`}
                    variants={variants}
                    segments={segments}
                    problem={problem}
                    onChange={(next) =>
                      changeEnvironment({ rules: current.rules.map((r, j) => (j === i ? next : r)) })
                    }
                    onMove={(to) => {
                      const rules = [...current.rules];
                      const [moved] = rules.splice(i, 1);
                      if (moved) rules.splice(to, 0, moved);
                      changeEnvironment({ rules });
                    }}
                    onRemove={() => changeEnvironment({ rules: current.rules.filter((_, j) => j !== i) })}
                  />
                ))}
              </ol>
              {mayEdit && (
                <button
                  type="button"
                  className="btn"
                  onClick={() => changeEnvironment({ rules: [...current.rules, newRuleDraft(variants)] })}
                >
                  Add rule
                </button>
              )}
            </>
          )}

          <h3>Default</h3>
          <p className="muted small">Served when the flag is on and no target or rule decided.</p>
          <ServeEditor
            serve={current.fallback}
            variants={variants}
            path={base}
            variantPath={`${base}/defaultVariant`}
            rolloutPath={`${base}/defaultRollout`}
            problem={problem}
            legend="Default"
            onChange={(fallback) => changeEnvironment({ fallback })}
          />
        </div>
      )}
    </section>
  );
}
