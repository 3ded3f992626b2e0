import type { Page } from '../api.ts';
import { Link } from '../router.tsx';
import { useUrlQuery } from '../url-query.ts';
import { pageRange } from './counted.ts';

/** The cursor a page's `next` (`cursor`) or `previous` (`before`) path carries. */
const cursorIn = (path: string | null, name: 'cursor' | 'before') =>
  path === null ? null : new URLSearchParams(path.split('?')[1] ?? '').get(name);

/**
 * Where a counted page stands, with links to the pages either side when there are any: addresses
 * of this page with another cursor, so that each page has a URL (docs/decisions/1803).
 */
export function Pager({ page, what }: { page: Page<unknown> | undefined; what: string }) {
  const { hrefWith } = useUrlQuery();
  if (page === undefined || page.total === null || page.items.length === 0) return null;
  const next = cursorIn(page.next, 'cursor');
  const previous = cursorIn(page.previous, 'before');
  return (
    <nav className="pager" aria-label={`Pages of ${what}`}>
      <span className="pager-range">{pageRange(page, what)}</span>
      {previous !== null && (
        <Link className="btn" rel="prev" to={hrefWith({ before: previous, cursor: null })}>
          Previous page
        </Link>
      )}
      {next !== null && (
        <Link className="btn" rel="next" to={hrefWith({ cursor: next, before: null })}>
          Next page
        </Link>
      )}
    </nav>
  );
}
