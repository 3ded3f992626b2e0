/** Flags a page of the list shows. */
export const PAGE_SIZE = 100;

/**
 * What the flag list shows, as its URL says (docs/decisions/1803): `?q=&tag=&stale=true&archived=true`
 * filter; `?environment=` shows that environment alone (its switches, staleness and last evaluation)
 * instead of every one; `?cursor=` or `?before=` is the page.
 */
export interface FlagListQuery {
  readonly q: string;
  readonly tag: string;
  readonly stale: boolean;
  readonly archived: boolean;
  /** '' for every environment. */
  readonly environment: string;
  readonly cursor: string;
  readonly before: string;
}

export function flagListQueryOf(params: URLSearchParams): FlagListQuery {
  return {
    q: params.get('q')?.trim() ?? '',
    tag: params.get('tag') ?? '',
    stale: params.get('stale') === 'true',
    archived: params.get('archived') === 'true',
    environment: params.get('environment') ?? '',
    cursor: params.get('cursor') ?? '',
    before: params.get('before') ?? '',
  };
}

/** Whether the list shows some flags only (not whether it shows archived ones instead). */
export const isFiltered = (query: FlagListQuery): boolean => Boolean(query.q || query.tag || query.stale);

/**
 * The one request of a page of the list: every environment's state comes with each flag, and
 * `staleIn` is the environment whose staleness the list shows and filters by.
 */
export function flagListPath(projectId: string, query: FlagListQuery, staleIn: string | undefined): string {
  const params = new URLSearchParams({ limit: String(PAGE_SIZE), archived: String(query.archived) });
  if (staleIn) params.set('environment', staleIn);
  if (query.q) params.set('q', query.q);
  if (query.tag) params.set('tag', query.tag);
  if (query.stale) params.set('stale', 'true');
  if (query.cursor) params.set('cursor', query.cursor);
  else if (query.before) params.set('before', query.before);
  return `/projects/${encodeURIComponent(projectId)}/flags?${params}`;
}
