import { useEffect, useMemo, useState } from 'react';
import type { FlagType, Variant } from '../../../src/domain/flag.ts';
import {
  type ApiError,
  api,
  type ChangeRequest,
  type Environment,
  enc,
  type Flag,
  type FlagSummary,
  isChangeRequest,
} from '../api.ts';
import { CreateDialog, OpenButton, useForm } from '../kit/dialogs.tsx';
import { DESCRIPTION_HINT, Field, KeyAndName, Options, TextField } from '../kit/field.tsx';
import { ResourceTable } from '../kit/resource-table.tsx';
import { primaryEnvironment } from '../primary-environment.ts';
import { useProject } from '../project.ts';
import { confirmProtected } from '../protected.tsx';
import { Link, navigate } from '../router.tsx';
import { can, useSession } from '../session.ts';
import { Empty, PageTitle, Switch, Time, toast } from '../ui.tsx';
import { newVariantDraft, tagsOf, type VariantDraft, variantsOf } from './flag/draft.ts';
import { VariantsEditor } from './flag/variants-editor.tsx';
import { TopFlags } from './top-flags.tsx';

interface Row {
  readonly flag: FlagSummary;
  readonly enabled: Readonly<Record<string, boolean>>;
  /** The latest evaluation in any environment. */
  readonly lastEvaluatedAt: string | null;
}

const latest = (times: readonly (string | null | undefined)[]): string | null =>
  times.reduce<string | null>((last, t) => (t && (last === null || t > last) ? t : last), null);

/** A project's flags, with a switch per environment, search and a tag filter. */
export function FlagsPage() {
  const { project, environments } = useProject();
  const { me } = useSession();
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  const [tag, setTag] = useState('');
  const [archived, setArchived] = useState(false);
  const [staleOnly, setStaleOnly] = useState(false);
  const [rows, setRows] = useState<Row[]>();
  const [allTags, setAllTags] = useState<string[]>([]);
  const [error, setError] = useState<ApiError>();
  const [generation, setGeneration] = useState(0);
  const [creating, setCreating] = useState(false);
  const mayEdit = can(me, 'editor', project);

  // Searching as one types, without a request per keystroke.
  useEffect(() => {
    const timer = setTimeout(() => setQuery(q.trim()), 250);
    return () => clearTimeout(timer);
  }, [q]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: generation is the reload signal
  useEffect(() => {
    let current = true;
    const filter = new URLSearchParams({ limit: '1000', archived: String(archived) });
    if (query) filter.set('q', query);
    if (tag) filter.set('tag', tag);
    // The list says `enabled` for one environment: ask once per environment and join by id.
    // Staleness is the primary environment's (production when there is one), and so is the filter;
    // its list is the one rows are made from.
    const primary = primaryEnvironment(environments)?.key;
    Promise.all(
      environments.map((e) =>
        api<FlagSummary[]>(
          'GET',
          `/projects/${enc(project.id)}/flags?${filter}&environment=${enc(e.key)}${e.key === primary && staleOnly ? '&stale=true' : ''}`,
        ),
      ),
    ).then(
      (lists) => {
        if (!current) return;
        const first = lists[environments.findIndex((e) => e.key === primary)] ?? [];
        setRows(
          first.map((flag) => ({
            flag,
            enabled: Object.fromEntries(
              environments.map((e, i) => [e.key, lists[i]?.find((f) => f.id === flag.id)?.enabled ?? false]),
            ),
            lastEvaluatedAt: latest(lists.map((list) => list.find((f) => f.id === flag.id)?.lastEvaluatedAt)),
          })),
        );
        setError(undefined);
        if (!query && !tag) setAllTags([...new Set(first.flatMap((f) => f.tags))].sort());
      },
      (e: ApiError) => current && setError(e),
    );
    return () => {
      current = false;
    };
  }, [project.id, environments, query, tag, archived, staleOnly, generation]);

  const toggle = async (row: Row, environment: Environment, enabled: boolean) => {
    const action = `switch ${row.flag.name} ${enabled ? 'on' : 'off'}`;
    if (!(await confirmProtected([environment], action, can(me, 'admin', project)))) return;
    setRows((rs) =>
      rs?.map((r) =>
        r.flag.id === row.flag.id ? { ...r, enabled: { ...r.enabled, [environment.key]: enabled } } : r,
      ),
    );
    try {
      const answer = await api<Flag | ChangeRequest>(
        'PATCH',
        `/flags/${enc(row.flag.id)}?environment=${enc(environment.key)}`,
        { enabled },
      );
      if (isChangeRequest(answer)) {
        // Nothing changed yet: the switch waits for approvals.
        toast(`Change request sent: ${environment.key} needs ${answer.requiredApprovals} approval(s).`);
        setGeneration((g) => g + 1);
      } else toast(`${row.flag.name} is ${enabled ? 'on' : 'off'} in ${environment.key}.`);
    } catch (e) {
      toast(`Could not switch ${row.flag.name}: ${(e as ApiError).message}`);
      setGeneration((g) => g + 1);
    }
  };

  const filtered = query || tag || staleOnly;
  return (
    <>
      <PageTitle actions={mayEdit && <OpenButton label="New flag" open={creating} setOpen={setCreating} />}>
        Flags
      </PageTitle>
      {creating && <CreateFlag onCancel={() => setCreating(false)} />}
      <search className="filters" aria-label="Filter flags">
        <label className="field inline">
          <span>Search</span>
          <input type="search" value={q} onChange={(e) => setQ(e.target.value)} placeholder="Key or name" />
        </label>
        <label className="field inline">
          <span>Tag</span>
          <select value={tag} onChange={(e) => setTag(e.target.value)}>
            <option value="">Any tag</option>
            <Options choices={allTags} />
          </select>
        </label>
        <label className="checkbox">
          <input type="checkbox" checked={archived} onChange={(e) => setArchived(e.target.checked)} />{' '}
          Archived flags
        </label>
        <label className="checkbox">
          <input type="checkbox" checked={staleOnly} onChange={(e) => setStaleOnly(e.target.checked)} /> Stale
          flags only
        </label>
      </search>
      {!archived && !filtered && <TopFlags />}
      <ResourceTable
        caption="Flags"
        rows={rows}
        rowKey={(row) => row.flag.id}
        error={error}
        retry={() => setGeneration((g) => g + 1)}
        empty={
          filtered ? (
            <Empty title="No flag matches">
              <p>
                {staleOnly
                  ? `No flag is stale in ${primaryEnvironment(environments)?.name ?? 'production'}: none has gone 30 days without being evaluated, nor served one variant to everyone for 30 days.`
                  : 'Try another search or tag.'}
              </p>
            </Empty>
          ) : (
            <Empty title={archived ? 'No archived flags' : 'No flags yet'}>
              {!archived && <p>Create a flag, then switch it on per environment and target it at users.</p>}
            </Empty>
          )
        }
        columns={[
          {
            header: 'Flag',
            cell: (row) => (
              <>
                <Link to={`/projects/${enc(project.key)}/flags/${enc(row.flag.key)}`} className="strong">
                  {row.flag.name}
                </Link>
                {row.flag.stale && (
                  <span className="badge stale" title={row.flag.stale.detail}>
                    stale<span className="visually-hidden">: {row.flag.stale.detail}</span>
                  </span>
                )}
                <div className="muted small">
                  <code>{row.flag.key}</code>
                  {row.flag.tags.map((t) => (
                    <span key={t} className="tag">
                      {t}
                    </span>
                  ))}
                </div>
              </>
            ),
          },
          { header: 'Type', className: 'hide-narrow', cell: (row) => row.flag.type },
          ...environments.map((e) => ({
            header: (
              <>
                {e.name}
                {e.protected && (
                  <span className="badge protected" title="Protected: switches ask first">
                    protected
                  </span>
                )}
              </>
            ),
            cell: (row: Row) => (
              <Switch
                checked={row.enabled[e.key] ?? false}
                label={`${row.flag.name} in ${e.name}`}
                disabled={!mayEdit || row.flag.archived}
                onChange={(on) => toggle(row, e, on)}
              />
            ),
          })),
          {
            header: 'Last evaluated',
            className: 'hide-narrow',
            cell: (row) => <Time at={row.lastEvaluatedAt} never="Never" />,
          },
          { header: 'Updated', className: 'hide-narrow', cell: (row) => <Time at={row.flag.updatedAt} /> },
        ]}
      />
    </>
  );
}

const TYPES: readonly FlagType[] = ['boolean', 'string', 'number', 'object'];

function CreateFlag({ onCancel }: { onCancel: () => void }) {
  const { project } = useProject();
  const form = useForm({ key: '', name: '', description: '', tags: '' });
  const { key, name, description, tags } = form.values;
  const [type, setType] = useState<FlagType>('boolean');
  const [variants, setVariants] = useState<VariantDraft[]>([]);
  const starter = useMemo(
    () =>
      ({
        boolean: () => [],
        string: () => [
          newVariantDraft('string', 'control', 'control'),
          newVariantDraft('string', 'treatment', 'treatment'),
        ],
        number: () => [newVariantDraft('number', 'low', '1'), newVariantDraft('number', 'high', '10')],
        object: () => [newVariantDraft('object', 'default', '{}')],
      }) satisfies Record<FlagType, () => VariantDraft[]>,
    [],
  );

  const submit = () =>
    form.run(async () => {
      const tagList = tagsOf(tags);
      const flag = await api<Flag>('POST', `/projects/${enc(project.id)}/flags`, {
        key,
        type,
        ...(name ? { name } : {}),
        ...(description ? { description } : {}),
        ...(tagList.length ? { tags: tagList } : {}),
        ...(type === 'boolean' ? {} : { variants: variantsOf(type, variants) as Variant[] }),
      });
      toast(`Flag ${flag.name} created. It is off in every environment.`);
      void navigate(`/projects/${enc(project.key)}/flags/${enc(flag.key)}`);
    });

  return (
    <CreateDialog what="flag" form={form} onSubmit={submit} onCancel={onCancel} wide>
      <KeyAndName of={form} keyHint="What your code asks for, e.g. new-checkout.">
        <Field label="Type" path="/type" problem={form.problem}>
          {(props) => (
            <select
              {...props}
              value={type}
              onChange={(e) => {
                const next = e.target.value as FlagType;
                setType(next);
                setVariants(starter[next]());
              }}
            >
              <Options choices={TYPES} />
            </select>
          )}
        </Field>
      </KeyAndName>
      <TextField of={form} name="description" label="Description" hint={DESCRIPTION_HINT} />
      <TextField of={form} name="tags" label="Tags" hint="Separated by commas." />
      {type === 'boolean' ? (
        <p className="muted small">A boolean flag serves the variants on (true) and off (false).</p>
      ) : (
        <VariantsEditor type={type} variants={variants} onChange={setVariants} problem={form.problem} />
      )}
    </CreateDialog>
  );
}
