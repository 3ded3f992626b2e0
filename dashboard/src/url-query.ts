import { useCallback, useMemo } from 'react';
import { navigate, useLocation } from './router.tsx';

/** Changes to a page's query: a value sets a parameter, '' or null removes it. */
export type QueryChanges = Readonly<Record<string, string | null>>;

/** A filter changes what a paged list holds: it starts again from its first page. */
export const firstPageWith = (changes: QueryChanges): QueryChanges => ({
  ...changes,
  cursor: null,
  before: null,
});

/** `path` (which may carry a query) with `changes` made to its query. */
export function withQuery(path: string, changes: QueryChanges): string {
  const [pathname = '', search = ''] = path.split('?');
  const params = new URLSearchParams(search);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null || value === '') params.delete(name);
    else params.set(name, value);
  }
  const query = params.toString();
  return query ? `${pathname}?${query}` : pathname;
}

/**
 * The page's query parameters, and a way to change them: the URL holds a list's filters and page,
 * so reload, Back, Forward and a shared link show the same list (docs/decisions/1803).
 */
export function useUrlQuery(): {
  readonly params: URLSearchParams;
  /** The current address with `changes` made, for a link. */
  readonly hrefWith: (changes: QueryChanges) => string;
  /** Goes there; `replace` changes the current history entry instead of adding one. */
  readonly change: (changes: QueryChanges, options?: { replace?: boolean }) => void;
} {
  const location = useLocation();
  const params = useMemo(() => new URLSearchParams(location.split('?')[1] ?? ''), [location]);
  const hrefWith = useCallback((changes: QueryChanges) => withQuery(location, changes), [location]);
  const change = useCallback(
    (changes: QueryChanges, options: { replace?: boolean } = {}) =>
      void navigate(withQuery(location, changes), options),
    [location],
  );
  return { params, hrefWith, change };
}
