import { useId } from 'react';
import { enc, useApi } from '../../api.ts';
import { FilterCheckbox, FilterSelect } from '../../kit/filter-controls.tsx';
import { SettlingInput } from '../../kit/settling-input.tsx';
import { useProject } from '../../project.ts';
import type { QueryChanges } from '../../url-query.ts';
import type { FlagListQuery } from './list-query.ts';

/** Search, tag, environment, archived and stale: each one a parameter of the list's URL. */
export function FlagFilters({
  query,
  onChange,
}: {
  query: FlagListQuery;
  /** `replace`: a refinement of the same filter (more letters of a search), not a new view for Back. */
  onChange: (changes: QueryChanges, options?: { replace?: boolean }) => void;
}) {
  const { project, environments } = useProject();
  const searchId = useId();
  const tags = useApi<string[]>(`/projects/${enc(project.id)}/flag-tags`);
  // A tag from a link is offered even when no flag has it any more, so the select says what is applied.
  const tagChoices = [...new Set([...(tags.data ?? []), ...(query.tag ? [query.tag] : [])])].sort();
  return (
    <search className="filters" aria-label="Filter flags">
      <label className="field inline" htmlFor={searchId}>
        <span>Search</span>
        <SettlingInput
          id={searchId}
          type="search"
          value={query.q}
          onSettle={(q) => onChange({ q }, { replace: query.q !== '' && q !== '' })}
          placeholder="Key or name"
        />
      </label>
      <FilterSelect
        label="Tag"
        any="Any tag"
        value={query.tag}
        choices={tagChoices}
        onChange={(tag) => onChange({ tag })}
      />
      <FilterSelect
        label="Environment"
        any="All environments"
        value={query.environment}
        choices={environments.map((e) => [e.key, e.name] as const)}
        onChange={(environment) => onChange({ environment })}
      />
      <FilterCheckbox
        label="Archived flags"
        checked={query.archived}
        onChange={(archived) => onChange({ archived })}
      />
      <FilterCheckbox
        label="Stale flags only"
        checked={query.stale}
        onChange={(stale) => onChange({ stale })}
      />
    </search>
  );
}
