import { type FormEvent, useEffect, useMemo, useState } from 'react';
import type { SegmentMatch } from '../../../src/domain/segment.ts';
import { type ApiError, api, enc, type Segment, useApi } from '../api.ts';
import { useProject } from '../app.tsx';
import { Link, navigate, useLeaveGuard } from '../router.tsx';
import { can, useSession } from '../session.ts';
import {
  confirm,
  describePath,
  Empty,
  ErrorSummary,
  Field,
  LoadError,
  Loading,
  PageTitle,
  Time,
  toast,
  useFocusFirstField,
} from '../ui.tsx';
import { type ConditionDraft, ConditionsEditor, conditionFromDraft, conditionToDraft } from './rules.tsx';

export function SegmentsPage() {
  const { project } = useProject();
  const { me } = useSession();
  const segments = useApi<Segment[]>(`/projects/${enc(project.id)}/segments?limit=1000`);
  const [creating, setCreating] = useState(false);
  const mayEdit = can(me, 'editor', project);
  return (
    <>
      <PageTitle
        actions={
          mayEdit &&
          !creating && (
            <button type="button" className="btn primary" onClick={() => setCreating(true)}>
              New segment
            </button>
          )
        }
      >
        Segments
      </PageTitle>
      <p className="muted">Groups of users, by attributes or by targetingKey, that flag rules can target.</p>
      {creating && <CreateSegment onCancel={() => setCreating(false)} />}
      {segments.error && <LoadError error={segments.error} retry={segments.reload} />}
      {segments.loading && <Loading what="segments" />}
      {segments.data?.length === 0 && (
        <Empty title="No segments yet">
          <p>A segment such as “Beta testers” or “Users in the Netherlands” can be used by every flag.</p>
        </Empty>
      )}
      {segments.data && segments.data.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Segment</th>
                <th scope="col">Rules</th>
                <th scope="col">Included / excluded</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {segments.data.map((s) => (
                <tr key={s.id}>
                  <td>
                    <Link to={`/projects/${enc(project.key)}/segments/${enc(s.id)}`} className="strong">
                      {s.name}
                    </Link>
                    <div className="muted small">
                      <code>{s.key}</code>
                    </div>
                  </td>
                  <td>
                    {s.rules.length} {s.rules.length === 1 ? 'rule' : 'rules'}
                    {s.rules.length > 1 && (
                      <span className="muted"> ({s.match === 'all' ? 'all must hold' : 'any'})</span>
                    )}
                  </td>
                  <td>
                    {s.included.length} / {s.excluded.length}
                  </td>
                  <td>
                    <Time at={s.updatedAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function CreateSegment({ onCancel }: { onCancel: () => void }) {
  const focusRef = useFocusFirstField<HTMLFormElement>();
  const { project } = useProject();
  const [key, setKey] = useState('');
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      const segment = await api<Segment>('POST', `/projects/${enc(project.id)}/segments`, {
        key,
        ...(name ? { name } : {}),
      });
      toast(`Segment ${segment.name} created. Add its rules.`);
      void navigate(`/projects/${enc(project.key)}/segments/${enc(segment.id)}`);
    } catch (error) {
      setProblem(error as ApiError);
      setBusy(false);
    }
  };
  return (
    <form ref={focusRef} className="panel" onSubmit={submit} noValidate aria-labelledby="new-segment">
      <h2 id="new-segment">New segment</h2>
      <ErrorSummary problem={problem} />
      <div className="row">
        <Field label="Key" path="/key" problem={problem} hint="Used by rules, e.g. beta-testers.">
          {(props) => (
            <input {...props} value={key} onChange={(e) => setKey(e.target.value)} spellCheck={false} />
          )}
        </Field>
        <Field label="Name" path="/name" problem={problem}>
          {(props) => <input {...props} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
      </div>
      <div className="form-actions">
        <button type="submit" className="btn primary" disabled={busy}>
          Create segment
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

interface SegmentDraft {
  readonly name: string;
  readonly description: string;
  readonly match: SegmentMatch;
  readonly rules: readonly ConditionDraft[];
  readonly included: string;
  readonly excluded: string;
}

const draftOf = (s: Segment): SegmentDraft => ({
  name: s.name,
  description: s.description,
  match: s.match,
  rules: s.rules.map(conditionToDraft),
  included: s.included.join('\n'),
  excluded: s.excluded.join('\n'),
});

const keysOf = (text: string) => [
  ...new Set(
    text
      .split(/[\n,]/)
      .map((v) => v.trim())
      .filter(Boolean),
  ),
];

export function SegmentPage({ segmentId }: { segmentId: string }) {
  const { project } = useProject();
  const segment = useApi<Segment>(`/segments/${enc(segmentId)}`);
  const all = useApi<Segment[]>(`/projects/${enc(project.id)}/segments?limit=1000`);
  if (segment.error) return <LoadError error={segment.error} retry={segment.reload} />;
  if (!segment.data || !all.data) return <Loading what="segment" />;
  return (
    <SegmentEditor
      segment={segment.data}
      others={all.data.filter((s) => s.id !== segmentId).map((s) => s.key)}
      onSaved={segment.setData}
    />
  );
}

function SegmentEditor({
  segment,
  others,
  onSaved,
}: {
  segment: Segment;
  others: readonly string[];
  onSaved: (s: Segment) => void;
}) {
  const { project } = useProject();
  const { me } = useSession();
  const initial = useMemo(() => draftOf(segment), [segment]);
  const [draft, setDraft] = useState(initial);
  const [problem, setProblem] = useState<ApiError>();
  const [saving, setSaving] = useState(false);
  useEffect(() => setDraft(initial), [initial]);
  const dirty = JSON.stringify(draft) !== JSON.stringify(initial);
  useLeaveGuard(dirty);
  const mayEdit = can(me, 'editor', project);

  const save = async (event?: FormEvent) => {
    event?.preventDefault();
    setSaving(true);
    setProblem(undefined);
    try {
      const saved = await api<Segment>(
        'PATCH',
        `/segments/${enc(segment.id)}`,
        {
          name: draft.name,
          description: draft.description,
          match: draft.match,
          rules: draft.rules.map(conditionFromDraft),
          included: keysOf(draft.included),
          excluded: keysOf(draft.excluded),
        },
        segment.version,
      );
      onSaved(saved);
      toast(`Saved ${saved.name}.`);
    } catch (e) {
      setProblem(e as ApiError);
    } finally {
      setSaving(false);
    }
  };

  const remove = async () => {
    const ok = await confirm({
      title: `Delete ${segment.name}?`,
      body: 'Flags and segments that use it must stop using it first. This cannot be undone.',
      confirmLabel: 'Delete segment',
      danger: true,
    });
    if (!ok) return;
    try {
      await api('DELETE', `/segments/${enc(segment.id)}`, undefined, segment.version);
      toast(`${segment.name} deleted.`);
      void navigate(`/projects/${enc(project.key)}/segments`, { replace: true });
    } catch (e) {
      setProblem(e as ApiError);
    }
  };

  return (
    <form onSubmit={save} noValidate>
      <PageTitle
        actions={
          mayEdit && (
            <button type="button" className="btn danger" onClick={remove} disabled={dirty}>
              Delete
            </button>
          )
        }
      >
        {segment.name}
      </PageTitle>
      <p className="muted">
        <code>{segment.key}</code> · version {segment.version} · updated <Time at={segment.updatedAt} />
      </p>
      <ErrorSummary problem={problem} describe={describePath} />
      <section className="panel" aria-labelledby="segment-rules">
        <h2 id="segment-rules">Who is in it</h2>
        <fieldset className="radio-row">
          <legend>A user is in the segment when</legend>
          {(['all', 'any'] as const).map((m) => (
            <label key={m} className="checkbox">
              <input
                type="radio"
                name="match"
                checked={draft.match === m}
                onChange={() => setDraft({ ...draft, match: m })}
              />{' '}
              {m === 'all' ? 'every rule holds' : 'any rule holds'}
            </label>
          ))}
        </fieldset>
        <ConditionsEditor
          conditions={draft.rules}
          onChange={(rules) => setDraft({ ...draft, rules })}
          path="/rules"
          segments={others}
          problem={problem}
          allowSegments
          addLabel="Add rule"
        />
        <div className="row">
          <Field
            label="Always included"
            path="/included"
            problem={problem}
            hint="targetingKeys, one per line; they are in whatever the rules say."
          >
            {(props) => (
              <textarea
                {...props}
                rows={3}
                value={draft.included}
                spellCheck={false}
                onChange={(e) => setDraft({ ...draft, included: e.target.value })}
              />
            )}
          </Field>
          <Field
            label="Always excluded"
            path="/excluded"
            problem={problem}
            hint="Excluded wins over included."
          >
            {(props) => (
              <textarea
                {...props}
                rows={3}
                value={draft.excluded}
                spellCheck={false}
                onChange={(e) => setDraft({ ...draft, excluded: e.target.value })}
              />
            )}
          </Field>
        </div>
      </section>
      <section className="panel" aria-labelledby="segment-details">
        <h2 id="segment-details">Details</h2>
        <Field label="Name" path="/name" problem={problem}>
          {(props) => (
            <input
              {...props}
              value={draft.name}
              onChange={(e) => setDraft({ ...draft, name: e.target.value })}
            />
          )}
        </Field>
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
      </section>
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
          <button type="submit" className="btn primary" disabled={saving || !mayEdit}>
            {saving ? 'Saving…' : 'Save changes'}
          </button>
        </section>
      )}
    </form>
  );
}
