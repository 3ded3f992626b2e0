import { enc, useApi } from '../../api.ts';
import { FilterCheckbox, FilterSelect, FilterText, type QueryFilters } from '../../kit/filter-controls.tsx';
import { useProject } from '../../project.ts';
import { environmentChoices } from '../environment-field.tsx';
import type { FlagListQuery } from './list-query.ts';

/** Search, tag, environment, archived and stale: each one a parameter of the list's URL. */
export function FlagFilters(filters: QueryFilters<FlagListQuery>) {
  const { project, environments } = useProject();
  const tag = filters.query.tag;
  const tags = useApi<string[]>(`/projects/${enc(project.id)}/flag-tags`);
  // A tag from a link is offered even when no flag has it any more, so the select says what is applied.
  const tagChoices = [...new Set([...(tags.data ?? []), ...(tag ? [tag] : [])])].sort();
  return (
    <search className="filters" aria-label="Filter flags">
      <FilterText of={filters} name="q" label="Search" type="search" placeholder="Key or name" />
      <FilterSelect of={filters} name="tag" label="Tag" any="Any tag" choices={tagChoices} />
      <FilterSelect
        of={filters}
        name="environment"
        label="Environment"
        any="All environments"
        choices={environmentChoices(environments)}
      />
      <FilterCheckbox of={filters} name="archived" label="Archived flags" />
      <FilterCheckbox of={filters} name="stale" label="Stale flags only" />
    </search>
  );
}
