import { useEffect, useMemo, useRef, useState } from 'react';
import type { FlagEnvironment, JsonValue, TargetingRule } from '../../../src/domain/flag.ts';
import type { ApiError } from '../api.ts';
import { type AuditEvent, api, enc, type Flag, type Segment, useApi } from '../api.ts';
import { useProject } from '../app.tsx';
import { navigate, useLeaveGuard } from '../router.tsx';
import { can, useSession } from '../session.ts';
import {
  confirm,
  describePath,
  ErrorSummary,
  Field,
  fieldId,
  InlineError,
  LoadError,
  Loading,
  PageTitle,
  Switch,
  Tabs,
  Time,
  toast,
} from '../ui.tsx';
import {
  type ConditionDraft,
  ConditionsEditor,
  conditionFromDraft,
  conditionToDraft,
  type RolloutDraft,
  RolloutEditor,
  rolloutFromDraft,
  rolloutToDraft,
  SegmentPicker,
} from './rules.tsx';
import { TargetingProblem } from './targeting-problem.tsx';
import { draftsFromVariants, type VariantDraft, VariantsEditor, variantsFromDrafts } from './variants.tsx';

interface ServeDraft {
  readonly kind: 'variant' | 'rollout';
  readonly variant: string;
  readonly rollout: RolloutDraft;
}

interface RuleDraft {
  /** For React only: rules have no stable identity until the server gives them an id. */
  readonly uid: number;
  readonly id?: string;
  readonly description: string;
  readonly segments: readonly string[];
  readonly conditions: readonly ConditionDraft[];
  readonly serve: ServeDraft;
}

interface EnvironmentDraft {
  readonly enabled: boolean;
  readonly offVariant: string;
  readonly fallback: ServeDraft;
  /** One entry per variant: the targetingKeys it is served to, as typed. */
  readonly targets: Readonly<Record<string, string>>;
  readonly rules: readonly RuleDraft[];
  readonly targeting?: JsonValue;
}

interface FlagDraft {
  readonly name: string;
  readonly description: string;
  readonly tags: string;
  readonly variants: readonly VariantDraft[];
  readonly environments: Readonly<Record<string, EnvironmentDraft>>;
}

let uids = 0;

/** A rollout draft with every variant of the flag in it, so new variants can get a share. */
function withVariants(draft: RolloutDraft, variants: readonly string[]): RolloutDraft {
  const known = new Set(draft.weights.map((w) => w.variant));
  return {
    ...draft,
    weights: [
      ...draft.weights,
      ...variants.filter((v) => !known.has(v)).map((v) => ({ variant: v, weight: '0' })),
    ],
  };
}

function serveDraft(
  variant: string | null,
  rollout: TargetingRule['serve'] | undefined,
  variants: readonly string[],
): ServeDraft {
  const r = rollout && 'rollout' in rollout ? rollout.rollout : undefined;
  return {
    kind: r ? 'rollout' : 'variant',
    variant: variant ?? '',
    rollout: withVariants(rolloutToDraft(r, variants), variants),
  };
}

function environmentDraft(config: FlagEnvironment, variants: readonly string[]): EnvironmentDraft {
  return {
    enabled: config.enabled,
    offVariant: config.offVariant ?? '',
    fallback: serveDraft(
      config.defaultVariant,
      config.defaultRollout ? { rollout: config.defaultRollout } : undefined,
      variants,
    ),
    targets: Object.fromEntries(
      variants.map((v) => [
        v,
        config.targets
          .filter((t) => t.variant === v)
          .flatMap((t) => t.values)
          .join('\n'),
      ]),
    ),
    rules: config.rules.map((rule) => ({
      uid: ++uids,
      id: rule.id,
      description: rule.description ?? '',
      segments: rule.segments,
      conditions: rule.conditions.map(conditionToDraft),
      serve: serveDraft('variant' in rule.serve ? rule.serve.variant : '', rule.serve, variants),
    })),
    ...(config.targeting === undefined ? {} : { targeting: config.targeting }),
  };
}

function draftOf(flag: Flag): FlagDraft {
  const variants = flag.variants.map((v) => v.key);
  return {
    name: flag.name,
    description: flag.description,
    tags: flag.tags.join(', '),
    variants: draftsFromVariants(flag.variants),
    environments: Object.fromEntries(
      Object.entries(flag.environments).map(([k, c]) => [k, environmentDraft(c, variants)]),
    ),
  };
}

/** Individual targets as sent: only variants that list someone, in variant order. */
const targetEntries = (targets: Readonly<Record<string, string>>) =>
  Object.entries(targets)
    .map(([variant, text]) => ({
      variant,
      values: text
        .split(/[\n,]/)
        .map((v) => v.trim())
        .filter(Boolean),
    }))
    .filter((t) => t.values.length > 0);

const serveOf = (serve: ServeDraft) =>
  serve.kind === 'variant' ? { variant: serve.variant } : { rollout: rolloutFromDraft(serve.rollout) };

function environmentPatch(draft: EnvironmentDraft): Record<string, unknown> {
  const fallback = draft.fallback;
  return {
    enabled: draft.enabled,
    offVariant: draft.offVariant || null,
    defaultVariant: fallback.variant || null,
    defaultRollout: fallback.kind === 'rollout' ? rolloutFromDraft(fallback.rollout) : null,
    ...(draft.targeting === undefined
      ? {
          targets: targetEntries(draft.targets),
          rules: draft.rules.map((r) => ({
            ...(r.id ? { id: r.id } : {}),
            ...(r.description.trim() ? { description: r.description.trim() } : {}),
            segments: r.segments,
            conditions: r.conditions.map(conditionFromDraft),
            serve: serveOf(r.serve),
          })),
        }
      : {}),
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A flag: its variants and, per environment, its switch, targets, rules and default; and its history. */
export function FlagPage({ flagKey }: { flagKey: string }) {
  const { project } = useProject();
  const flag = useApi<Flag>(`/projects/${enc(project.id)}/flags/${enc(flagKey)}`);
  const segments = useApi<Segment[]>(`/projects/${enc(project.id)}/segments?limit=1000`);
  if (flag.error) return <LoadError error={flag.error} retry={flag.reload} />;
  if (!flag.data || !segments.data) return <Loading what="flag" />;
  return (
    <FlagEditor
      flag={flag.data}
      segmentKeys={segments.data.map((s) => s.key)}
      onSaved={flag.setData}
      reload={flag.reload}
    />
  );
}

function FlagEditor({
  flag,
  segmentKeys,
  onSaved,
  reload,
}: {
  flag: Flag;
  segmentKeys: readonly string[];
  onSaved: (flag: Flag) => void;
  reload: () => void;
}) {
  const { project, environments } = useProject();
  const { me } = useSession();
  const initial = useMemo(() => draftOf(flag), [flag]);
  const [draft, setDraft] = useState(initial);
  const [problem, setProblem] = useState<ApiError>();
  const [saving, setSaving] = useState(false);
  const [historyGeneration, setHistoryGeneration] = useState(0);
  const envKeys = environments.map((e) => e.key).filter((k) => flag.environments[k]);
  const [env, setEnv] = useState(envKeys.includes('production') ? 'production' : (envKeys[0] ?? ''));
  const mayEdit = can(me, 'editor', project);
  const dirty = !same(draft, initial);
  useLeaveGuard(dirty);
  const variantKeys = draft.variants.map((v) => v.key).filter(Boolean);
  useEffect(() => setDraft(initial), [initial]);

  const setEnvDraft = (change: Partial<EnvironmentDraft>) =>
    setDraft((d) => {
      const current = d.environments[env];
      return current ? { ...d, environments: { ...d.environments, [env]: { ...current, ...change } } } : d;
    });

  const save = async () => {
    setSaving(true);
    setProblem(undefined);
    const patch: Record<string, unknown> = {};
    if (draft.name !== initial.name) patch.name = draft.name;
    if (draft.description !== initial.description) patch.description = draft.description;
    if (draft.tags !== initial.tags)
      patch.tags = draft.tags
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);
    if (!same(draft.variants, initial.variants))
      patch.variants = variantsFromDrafts(flag.type, draft.variants);
    const changed = Object.entries(draft.environments).filter(([k, e]) => !same(e, initial.environments[k]));
    if (changed.length > 0)
      patch.environments = Object.fromEntries(changed.map(([k, e]) => [k, environmentPatch(e)]));
    try {
      const saved = await api<Flag>('PATCH', `/flags/${enc(flag.id)}`, patch, flag.version);
      onSaved(saved);
      setHistoryGeneration((g) => g + 1);
      toast(`Saved ${saved.name}.`);
    } catch (error) {
      const e = error as ApiError;
      setProblem(e);
      // Show the environment the first error is in, so its field is on screen.
      const envOfError = e.errors.map((x) => /^\/environments\/([^/]+)/.exec(x.path)?.[1]).find(Boolean);
      if (envOfError && envOfError !== env) setEnv(envOfError);
    } finally {
      setSaving(false);
    }
  };

  const setArchived = async (archived: boolean) => {
    if (
      archived &&
      !(await confirm({
        title: `Archive ${flag.name}?`,
        body: 'Archived flags still evaluate, but leave the flag list and bulk evaluation. You can restore it later.',
        confirmLabel: 'Archive flag',
      }))
    )
      return;
    try {
      onSaved(await api<Flag>('PATCH', `/flags/${enc(flag.id)}`, { archived }, flag.version));
      toast(archived ? `${flag.name} archived.` : `${flag.name} restored.`);
    } catch (e) {
      setProblem(e as ApiError);
    }
  };

  const remove = async () => {
    const ok = await confirm({
      title: `Delete ${flag.name}?`,
      body: (
        <p>
          Applications asking for <code>{flag.key}</code> will get “flag not found” in every environment. This
          cannot be undone.
        </p>
      ),
      confirmLabel: 'Delete flag',
      danger: true,
    });
    if (!ok) return;
    try {
      await api('DELETE', `/flags/${enc(flag.id)}`, undefined, flag.version);
      toast(`${flag.name} deleted.`);
      void navigate(`/projects/${enc(project.key)}/flags`, { replace: true });
    } catch (e) {
      setProblem(e as ApiError);
    }
  };

  const current = draft.environments[env];
  const base = `/environments/${env}`;
  const environmentName = environments.find((e) => e.key === env)?.name ?? env;
  const stale = problem?.status === 412;
  const targetCount = current ? targetEntries(current.targets).reduce((n, t) => n + t.values.length, 0) : 0;
  const targetErrors = problem?.errors.some((e) => e.path.startsWith(`${base}/targets`)) ?? false;

  return (
    <>
      <PageTitle
        actions={
          mayEdit && (
            <>
              <button
                type="button"
                className="btn"
                onClick={() => setArchived(!flag.archived)}
                disabled={dirty}
              >
                {flag.archived ? 'Restore' : 'Archive'}
              </button>
              <button type="button" className="btn danger" onClick={remove} disabled={dirty}>
                Delete
              </button>
            </>
          )
        }
      >
        {flag.name} {flag.archived && <span className="badge">archived</span>}
      </PageTitle>
      <p className="muted">
        <code>{flag.key}</code> · {flag.type} flag · version {flag.version} · updated{' '}
        <Time at={flag.updatedAt} />
      </p>
      {stale ? (
        <div className="error-summary" role="alert">
          <p>
            <strong>Someone else changed this flag since you opened it.</strong> Reload to see their version;
            your edits here will be discarded.
          </p>
          <button type="button" className="btn" onClick={reload}>
            Reload the flag
          </button>
        </div>
      ) : (
        <ErrorSummary problem={problem} describe={describePath} />
      )}

      <section className="panel" aria-labelledby="targeting-title">
        <h2 id="targeting-title">Targeting</h2>
        <Tabs
          label="Environment"
          idPrefix="env"
          selected={env}
          onSelect={setEnv}
          tabs={envKeys.map((k) => ({
            key: k,
            label: (
              <>
                {environments.find((e) => e.key === k)?.name ?? k}{' '}
                <span className={`dot ${draft.environments[k]?.enabled ? 'on' : ''}`} aria-hidden="true" />
                {!same(draft.environments[k], initial.environments[k]) && (
                  <span className="visually-hidden"> (edited)</span>
                )}
                {!same(draft.environments[k], initial.environments[k]) && <span aria-hidden="true"> •</span>}
              </>
            ),
          }))}
        />
        {current && (
          <div role="tabpanel" id="env-panel" aria-labelledby={`env-tab-${env}`} className="tab-panel">
            <div className="env-switch">
              <Switch
                id={fieldId(`${base}/enabled`)}
                checked={current.enabled}
                disabled={!mayEdit}
                label={`Serve ${flag.name} in ${environmentName}`}
                onChange={(enabled) => setEnvDraft({ enabled })}
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
                  onChange={(e) => setEnvDraft({ offVariant: e.target.value })}
                >
                  <option value="">No value (null)</option>
                  {variantKeys.map((v) => (
                    <option key={v}>{v}</option>
                  ))}
                </select>
              )}
            </Field>

            {current.targeting !== undefined ? (
              <div className="notice">
                <p>
                  This environment uses flagd JsonLogic targeting (imported). It is shown here as it is;
                  import a new definition to change it.
                </p>
                <pre>{JSON.stringify(current.targeting, null, 2)}</pre>
                <TargetingProblem flag={flag} environment={env} />
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
                    {variantKeys.map((v) => {
                      const index = targetEntries(current.targets).findIndex((t) => t.variant === v);
                      return (
                        <Field
                          key={v}
                          label={`Serve ${v} to`}
                          path={`${base}/targets/${index < 0 ? `new-${v}` : index}/values`}
                          problem={problem}
                        >
                          {(props) => (
                            <textarea
                              {...props}
                              rows={2}
                              value={current.targets[v] ?? ''}
                              spellCheck={false}
                              onChange={(e) =>
                                setEnvDraft({ targets: { ...current.targets, [v]: e.target.value } })
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
                      variants={variantKeys}
                      segments={segmentKeys}
                      problem={problem}
                      onChange={(next) =>
                        setEnvDraft({ rules: current.rules.map((r, j) => (j === i ? next : r)) })
                      }
                      onMove={(to) => {
                        const rules = [...current.rules];
                        const [moved] = rules.splice(i, 1);
                        if (moved) rules.splice(to, 0, moved);
                        setEnvDraft({ rules });
                      }}
                      onRemove={() => setEnvDraft({ rules: current.rules.filter((_, j) => j !== i) })}
                    />
                  ))}
                </ol>
                {mayEdit && (
                  <button
                    type="button"
                    className="btn"
                    onClick={() =>
                      setEnvDraft({
                        rules: [
                          ...current.rules,
                          {
                            uid: ++uids,
                            description: '',
                            segments: [],
                            conditions: [],
                            serve: serveDraft(variantKeys[0] ?? '', undefined, variantKeys),
                          },
                        ],
                      })
                    }
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
              variants={variantKeys}
              path={base}
              variantPath={`${base}/defaultVariant`}
              rolloutPath={`${base}/defaultRollout`}
              problem={problem}
              legend="Default"
              onChange={(fallback) => setEnvDraft({ fallback })}
            />
          </div>
        )}
      </section>

      <section className="panel" aria-labelledby="settings-title">
        <h2 id="settings-title">Settings</h2>
        <div className="row">
          <Field label="Name" path="/name" problem={problem}>
            {(props) => (
              <input
                {...props}
                value={draft.name}
                onChange={(e) => setDraft({ ...draft, name: e.target.value })}
              />
            )}
          </Field>
          <Field label="Tags" path="/tags" problem={problem} hint="Separated by commas.">
            {(props) => (
              <input
                {...props}
                value={draft.tags}
                onChange={(e) => setDraft({ ...draft, tags: e.target.value })}
              />
            )}
          </Field>
        </div>
        <Field label="Description" path="/description" problem={problem}>
          {(props) => (
            <textarea
              {...props}
              rows={2}
              value={draft.description}
              onChange={(e) => setDraft({ ...draft, description: e.target.value })}
            />
          )}
        </Field>
        <VariantsEditor
          type={flag.type}
          variants={draft.variants}
          onChange={(variants) => setDraft({ ...draft, variants })}
          problem={problem}
          readOnly={!mayEdit}
        />
      </section>

      <History flag={flag} generation={historyGeneration} />

      {dirty && (
        <section className="save-bar" aria-label="Unsaved changes">
          <span className="save-text">You have unsaved changes.</span>
          <button
            type="button"
            className="btn"
            onClick={() => {
              setDraft(initial);
              setProblem(undefined);
            }}
          >
            Discard
          </button>
          <button type="button" className="btn primary" onClick={save} disabled={saving || !mayEdit}>
            {saving ? 'Saving…' : 'Save changes'}
          </button>
        </section>
      )}
    </>
  );
}

/** Serve one variant, or split by percentage. */
function ServeEditor({
  serve,
  variants,
  variantPath,
  rolloutPath,
  problem,
  onChange,
  legend,
  path,
}: {
  serve: ServeDraft;
  variants: readonly string[];
  variantPath: string;
  rolloutPath: string;
  problem?: ApiError | undefined;
  onChange: (serve: ServeDraft) => void;
  legend: string;
  path: string;
}) {
  const name = `${fieldId(path)}-serve`;
  return (
    <fieldset className="serve">
      <legend className="visually-hidden">{legend}: what to serve</legend>
      <div className="radio-row">
        <label className="checkbox">
          <input
            type="radio"
            name={name}
            checked={serve.kind === 'variant'}
            onChange={() => onChange({ ...serve, kind: 'variant' })}
          />{' '}
          Serve a variant
        </label>
        <label className="checkbox">
          <input
            type="radio"
            name={name}
            checked={serve.kind === 'rollout'}
            onChange={() =>
              onChange({ ...serve, kind: 'rollout', rollout: withVariants(serve.rollout, variants) })
            }
          />{' '}
          Percentage rollout
        </label>
      </div>
      <InlineError problem={problem} path={path.endsWith('/serve') ? path : `${path}/serve`} />
      <Field
        label={serve.kind === 'variant' ? 'Variant' : 'Users without the bucket attribute get'}
        path={variantPath}
        problem={problem}
      >
        {(props) => (
          <select
            {...props}
            value={serve.variant}
            onChange={(e) => onChange({ ...serve, variant: e.target.value })}
          >
            <option value="">{serve.kind === 'variant' ? 'Choose a variant' : 'No value (null)'}</option>
            {variants.map((v) => (
              <option key={v}>{v}</option>
            ))}
          </select>
        )}
      </Field>
      {serve.kind === 'rollout' && (
        <RolloutEditor
          draft={serve.rollout}
          path={rolloutPath}
          problem={problem}
          onChange={(rollout) => onChange({ ...serve, rollout })}
        />
      )}
    </fieldset>
  );
}

function RuleEditor({
  rule,
  index,
  count,
  path,
  variants,
  segments,
  problem,
  onChange,
  onMove,
  onRemove,
}: {
  rule: RuleDraft;
  index: number;
  count: number;
  path: string;
  variants: readonly string[];
  segments: readonly string[];
  problem?: ApiError | undefined;
  onChange: (rule: RuleDraft) => void;
  onMove: (to: number) => void;
  onRemove: () => void;
}) {
  const title = `Rule ${index + 1}`;
  return (
    <li className="rule" aria-label={title}>
      <div className="rule-head">
        <h4>{title}</h4>
        <div className="inline-actions">
          <button
            type="button"
            className="btn subtle"
            disabled={index === 0}
            onClick={() => onMove(index - 1)}
          >
            Move up<span className="visually-hidden"> {title}</span>
          </button>
          <button
            type="button"
            className="btn subtle"
            disabled={index === count - 1}
            onClick={() => onMove(index + 1)}
          >
            Move down<span className="visually-hidden"> {title}</span>
          </button>
          <button type="button" className="btn subtle danger-text" onClick={onRemove}>
            Remove<span className="visually-hidden"> {title}</span>
          </button>
        </div>
      </div>
      <Field label="Description" path={`${path}/description`} problem={problem}>
        {(props) => (
          <input
            {...props}
            value={rule.description}
            onChange={(e) => onChange({ ...rule, description: e.target.value })}
          />
        )}
      </Field>
      <SegmentPicker
        label="If the user is in every one of these segments"
        chosen={rule.segments}
        available={segments}
        path={`${path}/segments`}
        problem={problem}
        onChange={(s) => onChange({ ...rule, segments: s })}
      />
      <p className="muted small">…and every condition holds:</p>
      <ConditionsEditor
        conditions={rule.conditions}
        path={`${path}/conditions`}
        segments={segments}
        problem={problem}
        allowSegments={false}
        onChange={(conditions) => onChange({ ...rule, conditions })}
      />
      <ServeEditor
        serve={rule.serve}
        variants={variants}
        path={`${path}/serve`}
        variantPath={`${path}/serve/variant`}
        rolloutPath={`${path}/serve/rollout`}
        problem={problem}
        legend={title}
        onChange={(serve) => onChange({ ...rule, serve })}
      />
    </li>
  );
}

const describeChange = (event: AuditEvent): string => {
  const before = (event.before ?? {}) as Record<string, unknown>;
  const after = (event.after ?? {}) as Record<string, unknown>;
  if (event.action.endsWith('.created')) return 'Created';
  if (event.action.endsWith('.deleted')) return 'Deleted';
  const fields = ['name', 'description', 'tags', 'variants', 'archived'].filter(
    (f) => !same(before[f], after[f]),
  );
  const envBefore = (before.environments ?? {}) as Record<string, Record<string, unknown>>;
  const envAfter = (after.environments ?? {}) as Record<string, Record<string, unknown>>;
  for (const [k, config] of Object.entries(envAfter)) {
    const was = envBefore[k] ?? {};
    const changed = Object.keys({ ...was, ...config }).filter((f) => !same(was[f], config[f]));
    if (changed.length > 0) {
      const switched = changed.includes('enabled') ? `switched ${config.enabled ? 'on' : 'off'}` : '';
      const rest = changed.filter((f) => f !== 'enabled');
      fields.push(`${k}: ${[switched, rest.join(', ')].filter(Boolean).join('; ')}`);
    }
  }
  return fields.length > 0 ? `Changed ${fields.join(' · ')}` : 'Saved without changes';
};

/** The flag's history from the audit log (admins may read it). */
function History({ flag, generation }: { flag: Flag; generation: number }) {
  const { project } = useProject();
  const { me } = useSession();
  const admin = can(me, 'admin', project);
  const events = useApi<AuditEvent[]>(
    admin ? `/projects/${enc(project.id)}/audit-log?resourceId=${enc(flag.id)}&limit=50` : null,
  );
  const { reload } = events;
  const first = useRef(true);
  useEffect(() => {
    if (first.current) first.current = false;
    else if (generation > 0) reload();
  }, [generation, reload]);
  return (
    <section className="panel" aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      {!admin && <p className="muted">The history comes from the audit log, which admins can read.</p>}
      {events.error && <LoadError error={events.error} retry={events.reload} />}
      {events.loading && !events.data && <Loading what="history" />}
      {events.data && (
        <ol className="history">
          {events.data.map((e) => (
            <li key={e.id}>
              <Time at={e.at} /> · <strong>{e.actor.name}</strong>{' '}
              <span className="muted">({e.actor.type === 'user' ? 'person' : 'API key'})</span>
              <div>{describeChange(e)}</div>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
