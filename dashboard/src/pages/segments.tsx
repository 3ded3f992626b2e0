import { type FormEvent, useMemo, useState } from 'react';
import type { SegmentMatch } from '../../../src/domain/segment.ts';
import { type ApiError, api, enc, type Segment, type SegmentUsers, useApi, usePage } from '../api.ts';
import { CreateDialog, confirmThen, useForm, useSubmission } from '../kit/dialogs.tsx';
import {
  DESCRIPTION_HINT,
  describePath,
  ErrorSummary,
  type FieldSource,
  KeyAndName,
  NAME_HINT,
  RadioField,
  sourceOf,
  TextField,
} from '../kit/field.tsx';
import { ListSearch } from '../kit/filter-controls.tsx';
import { ItemByKey } from '../kit/item-by-key.tsx';
import { Pager } from '../kit/pager.tsx';
import { itemsOf, nameColumn, ResourceTable } from '../kit/resource-table.tsx';
import { SaveBar } from '../kit/save-bar.tsx';
import { askToReload } from '../kit/stale-version.tsx';
import { useDraft } from '../kit/use-draft.ts';
import { useEnvironmentNames, useProject } from '../project.ts';
import { Link, navigate } from '../router.tsx';
import { searchedPagePath, useUrlSearch } from '../searched-list.ts';
import { can, useSession } from '../session.ts';
import { Empty, LoadError, Loading, PageTitle, type SavedProps, Time, toast } from '../ui.tsx';
import { useUrlQuery } from '../url-query.ts';
import { type ConditionDraft, conditionFromDraft, conditionToDraft, listOf } from './condition-draft.ts';
import { ListPageTitle } from './list-page-title.tsx';
import { ConditionsEditor } from './rule-editors.tsx';

/** Segments a page of the list shows. */
const PAGE_SIZE = 100;

/**
 * A project's segments, a page at a time, with a search of their keys and names; the URL holds
 * both, as the flag list's does (docs/decisions/1844).
 */
export function SegmentsPage() {
  const { project } = useProject();
  const { params, search } = useUrlSearch();
  const segments = usePage<Segment>(
    searchedPagePath(`/projects/${enc(project.id)}/segments`, params, PAGE_SIZE),
  );
  const [creating, setCreating] = useState(false);
  return (
    <>
      <ListPageTitle newLabel="New segment" creating={creating} setCreating={setCreating}>
        Segments
      </ListPageTitle>
      <p className="muted">Groups of users, by attributes or by targetingKey, that flag rules can target.</p>
      {creating && <CreateSegment onCancel={() => setCreating(false)} />}
      <ListSearch of={search} what="segments" placeholder="Key or name" />
      <ResourceTable
        caption="Segments"
        of={itemsOf(segments)}
        empty={<NoSegments params={params} />}
        columns={[
          nameColumn('Segment', (s) => `/projects/${enc(project.key)}/segments/${enc(s.key)}`),
          {
            header: 'Rules',
            cell: (s) => (
              <>
                {s.rules.length} {s.rules.length === 1 ? 'rule' : 'rules'}
                {s.rules.length > 1 && (
                  <span className="muted"> ({s.match === 'all' ? 'all must hold' : 'any'})</span>
                )}
              </>
            ),
          },
          { header: 'Included / excluded', cell: (s) => `${s.included.length} / ${s.excluded.length}` },
          { header: 'Updated', cell: (s) => <Time at={s.updatedAt} /> },
        ]}
      />
      <Pager page={segments.data} what="segments" />
    </>
  );
}

/** What an empty page of the list says: why nothing matches, or how to begin. */
function NoSegments({ params }: { params: URLSearchParams }) {
  const { hrefWith } = useUrlQuery();
  if (params.get('cursor') || params.get('before'))
    return (
      <Empty title="No segments on this page">
        <p>
          The segments it showed are gone.{' '}
          <Link to={hrefWith({ cursor: null, before: null })}>First page</Link>
        </p>
      </Empty>
    );
  if (params.get('q')?.trim())
    return (
      <Empty title="No segment matches">
        <p>Try another search.</p>
      </Empty>
    );
  return (
    <Empty title="No segments yet">
      <p>A segment such as “Beta testers” or “Users in the Netherlands” can be used by every flag.</p>
    </Empty>
  );
}

function CreateSegment({ onCancel }: { onCancel: () => void }) {
  const { project } = useProject();
  const form = useForm({ key: '', name: '' });
  const { key, name } = form.values;
  const submit = () =>
    form.run(async () => {
      const segment = await api<Segment>('POST', `/projects/${enc(project.id)}/segments`, {
        key,
        ...(name ? { name } : {}),
      });
      toast(`Segment ${segment.name} created. Add its rules.`);
      void navigate(`/projects/${enc(project.key)}/segments/${enc(segment.key)}`);
    });
  return (
    <CreateDialog what="segment" form={form} onSubmit={submit} onCancel={onCancel}>
      <KeyAndName of={form} keyHint="Used by rules, e.g. beta-testers." />
    </CreateDialog>
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

const MATCHES = [
  ['all', 'every rule holds'],
  ['any', 'any rule holds'],
] as const;

const INCLUDED_HINT = 'targetingKeys, one per line; they are in whatever the rules say.';
const EXCLUDED_HINT = 'Excluded wins over included.';

const keysOf = (text: string) => [...new Set(listOf(text))];

/** The PATCH that stores a draft: every field, the keys listed once each. */
const patchOf = (draft: SegmentDraft) => ({
  name: draft.name,
  description: draft.description,
  match: draft.match,
  rules: draft.rules.map(conditionFromDraft),
  included: keysOf(draft.included),
  excluded: keysOf(draft.excluded),
});

/** A segment by its key, as every dashboard URL names things. */
export const SegmentPage = ({ segmentKey }: { segmentKey: string }) => (
  <ItemByKey<Segment> collection="segments" itemKey={segmentKey} what="segment">
    {(segment, saved) => <SegmentEditor segment={segment} {...saved} />}
  </ItemByKey>
);

function SegmentEditor({ segment, onSaved, onReload }: { segment: Segment } & SavedProps<Segment>) {
  const { project } = useProject();
  const { me } = useSession();
  const initial = useMemo(() => draftOf(segment), [segment]);
  const { draft, setDraft, dirty, discard } = useDraft(initial);
  const { problem, setProblem, busy: saving, run } = useSubmission();
  const mayEdit = can(me, 'editor', project);
  const fields = sourceOf(draft, setDraft, problem);
  const remove = useDeleteSegment(segment, setProblem);

  const save = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      try {
        const saved = await api<Segment>(
          'PATCH',
          `/segments/${enc(segment.id)}`,
          patchOf(draft),
          segment.version,
        );
        onSaved(saved);
        toast(`Saved ${saved.name}.`);
      } catch (error) {
        // Someone saved it since: the flag page's dialog, not a message of the segment's own.
        if ((error as ApiError).status !== 412) throw error;
        if (await askToReload(true, 'segment')) onReload();
      }
    });
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
      <WhoIsIn segmentKey={segment.key} fields={fields} />
      <section className="panel" aria-labelledby="segment-details">
        <h2 id="segment-details">Details</h2>
        <TextField of={fields} name="name" label="Name" hint={NAME_HINT} />
        <TextField of={fields} name="description" label="Description" rows={2} hint={DESCRIPTION_HINT} />
      </section>
      <UsedBy segment={segment} />
      {dirty && (
        <SaveBar
          saving={saving}
          mayEdit={mayEdit}
          onDiscard={() => {
            discard();
            setProblem(undefined);
          }}
        />
      )}
    </form>
  );
}

/** Deletes the segment once the person confirms it, and goes back to the list; a refusal goes to `onProblem`. */
function useDeleteSegment(segment: Segment, onProblem: (problem: ApiError) => void) {
  const { project } = useProject();
  return () =>
    confirmThen(
      {
        title: `Delete ${segment.name}?`,
        body: 'Flags and segments that use it (listed under “Used by”) must stop using it first. This cannot be undone.',
        confirmLabel: 'Delete segment',
        danger: true,
      },
      async () => {
        await api('DELETE', `/segments/${enc(segment.id)}`, undefined, segment.version);
        toast(`${segment.name} deleted.`);
        void navigate(`/projects/${enc(project.key)}/segments`, { replace: true });
      },
      onProblem,
    );
}

/** Who is in the segment: whether any or every rule must hold, the rules, and the keys always in or out. */
function WhoIsIn({ segmentKey, fields }: { segmentKey: string; fields: FieldSource<SegmentDraft> }) {
  const { values: draft, set, problem } = fields;
  return (
    <section className="panel" aria-labelledby="segment-rules">
      <h2 id="segment-rules">Who is in it</h2>
      <fieldset className="radio-row">
        <legend>A user is in the segment when</legend>
        <RadioField of={fields} name="match" group="match" choices={MATCHES} />
      </fieldset>
      <ConditionsEditor
        conditions={draft.rules}
        onChange={(rules) => set('rules', rules)}
        path="/rules"
        notSegment={segmentKey}
        problem={problem}
        allowSegments
        noun="rule"
      />
      <div className="row">
        <TextField of={fields} name="included" label="Always included" rows={3} code hint={INCLUDED_HINT} />
        <TextField of={fields} name="excluded" label="Always excluded" rows={3} code hint={EXCLUDED_HINT} />
      </div>
    </section>
  );
}

/** The flags and segments that use this one, each a link: what to change before it can be deleted. */
function UsedBy({ segment }: { segment: Segment }) {
  const { project } = useProject();
  const users = useApi<SegmentUsers>(`/segments/${enc(segment.id)}/used-by`);
  const p = `/projects/${enc(project.key)}`;
  const nameOf = useEnvironmentNames();
  return (
    <section className="panel" aria-labelledby="used-by-title">
      <h2 id="used-by-title">Used by</h2>
      {users.error && <LoadError error={users.error} retry={users.reload} />}
      {users.loading && <Loading what="what uses the segment" />}
      {users.data &&
        (users.data.flags.length + users.data.segments.length === 0 ? (
          <p className="muted">No flag or segment uses it: it can be deleted.</p>
        ) : (
          <ul className="used-by">
            {users.data.flags.map((f) => (
              <li key={f.id}>
                Flag <Link to={`${p}/flags/${enc(f.key)}`}>{f.name}</Link>{' '}
                <span className="muted">(rules in {f.environments.map(nameOf).join(', ')})</span>
              </li>
            ))}
            {users.data.segments.map((s) => (
              <li key={s.id}>
                Segment <Link to={`${p}/segments/${enc(s.key)}`}>{s.name}</Link>
              </li>
            ))}
          </ul>
        ))}
    </section>
  );
}
