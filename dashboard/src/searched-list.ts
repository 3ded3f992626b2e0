import { firstPageWith, type QueryChanges, useUrlQuery } from './url-query.ts';

/**
 * The page of a searched list (`path`: segments, accounts) the URL names (docs/decisions/1803):
 * `?q=` searches, `?cursor=`/`?before=` page, `pageSize` items at a time.
 */
export function searchedPagePath(path: string, params: URLSearchParams, pageSize: number): string {
  const query = new URLSearchParams({ limit: String(pageSize) });
  for (const name of ['q', 'cursor', 'before']) {
    const value = params.get(name)?.trim();
    if (value) query.set(name, value);
  }
  return `${path}?${query}`;
}

/**
 * The URL's search of a list page, as its `FilterText` takes it: a new search starts from the
 * first page (docs/decisions/1844, 1846).
 */
export function useUrlSearch() {
  const { params, change } = useUrlQuery();
  const search = {
    query: { q: params.get('q') ?? '' },
    onChange: (changes: QueryChanges, options?: { replace?: boolean }) =>
      change(firstPageWith(changes), options),
  };
  return { params, search };
}
