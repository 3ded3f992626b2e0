import { useMemo, useState } from 'react';
import type { FlagType, Variant } from '../../../src/domain/flag.ts';
import { api, type Environment, enc, type Flag, type FlagSummary, usePage } from '../api.ts';
import { CreateDialog, useForm } from '../kit/dialogs.tsx';
import { DESCRIPTION_HINT, Field, KeyAndName, Options, TextField } from '../kit/field.tsx';
import { Pager } from '../kit/pager.tsx';
import { primaryEnvironment } from '../primary-environment.ts';
import { useProject } from '../project.ts';
import { Link, navigate } from '../router.tsx';
import { Empty, toast } from '../ui.tsx';
import { firstPageWith, useUrlQuery } from '../url-query.ts';
import { newVariantDraft, tagsOf, type VariantDraft, variantsOf } from './flag/draft.ts';
import { VariantsEditor } from './flag/variants-editor.tsx';
import { FlagFilters } from './flag-list/flag-filters.tsx';
import { FlagTable } from './flag-list/flag-table.tsx';
import { type FlagListQuery, flagListPath, flagListQueryOf, isFiltered } from './flag-list/list-query.ts';
import { ListPageTitle } from './list-page-title.tsx';
import { TopFlags } from './top-flags.tsx';

/**
 * A project's flags, a page at a time, with search and filters: the URL holds them all, and one
 * request brings a page with every environment's switches (docs/decisions/1802, 1803).
 */
export function FlagsPage() {
  const { project, environments } = useProject();
  const { params, change } = useUrlQuery();
  const query = flagListQueryOf(params);
  const [creating, setCreating] = useState(false);
  const selected = environments.find((e) => e.key === query.environment);
  // Staleness is the chosen environment's, else the primary one's (production when there is one).
  const staleIn = selected ?? primaryEnvironment(environments);
  const list = usePage<FlagSummary>(flagListPath(project.id, query, staleIn?.key));
  const firstPage = !query.cursor && !query.before;
  return (
    <>
      <ListPageTitle newLabel="New flag" creating={creating} setCreating={setCreating}>
        Flags
      </ListPageTitle>
      {creating && <CreateFlag onCancel={() => setCreating(false)} />}
      <FlagFilters query={query} onChange={(changes, options) => change(firstPageWith(changes), options)} />
      {!query.archived && !isFiltered(query) && firstPage && <TopFlags />}
      <FlagTable
        list={list}
        shown={selected ? [selected] : environments}
        empty={<NoFlags query={query} staleIn={staleIn} />}
      />
      <Pager page={list.data} what="flags" />
    </>
  );
}

/** What an empty page of the list says: why nothing matches, or how to begin. */
function NoFlags({ query, staleIn }: { query: FlagListQuery; staleIn: Environment | undefined }) {
  const { hrefWith } = useUrlQuery();
  if (query.cursor || query.before)
    return (
      <Empty title="No flags on this page">
        <p>
          The flags it showed are gone. <Link to={hrefWith({ cursor: null, before: null })}>First page</Link>
        </p>
      </Empty>
    );
  if (isFiltered(query))
    return (
      <Empty title="No flag matches">
        <p>
          {query.stale
            ? `No flag is stale in ${staleIn?.name ?? 'production'}: none has gone 30 days without being evaluated, nor served one variant to everyone for 30 days.`
            : 'Try another search or tag.'}
        </p>
      </Empty>
    );
  return (
    <Empty title={query.archived ? 'No archived flags' : 'No flags yet'}>
      {!query.archived && <p>Create a flag, then switch it on per environment and target it at users.</p>}
    </Empty>
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
