import { useState } from 'react';
import type { ApiError, UserViewFlag } from '../api.ts';
import { formatted, pageRange } from '../kit/counted.ts';
import { Options } from '../kit/field.tsx';
import { ResourceTable } from '../kit/resource-table.tsx';
import { useProject } from '../project.ts';
import { Link } from '../router.tsx';
import { Empty, LoadError, Loading } from '../ui.tsx';
import { DecidedBy, REASON_WORDS } from './decided-by.tsx';
import type { Context } from './user-context.ts';

/** Rows on one page of results: a project may have 10,000 flags. */
const PAGE_SIZE = 100;

const REASON_CHOICES = [
  ['', 'Any reason'] as const,
  ...Object.keys(REASON_WORDS).map((r) => [r, r] as const),
];

/** The flags the filters keep: the text in the key or name, and the reason. */
function matching(flags: readonly UserViewFlag[], text: string, reason: string): readonly UserViewFlag[] {
  const needle = text.trim().toLowerCase();
  return flags.filter(
    (f) =>
      (reason === '' || f.reason === reason) &&
      (needle === '' || f.key.toLowerCase().includes(needle) || f.name.toLowerCase().includes(needle)),
  );
}

/** The user view's answer: a filter, one page of flags, and the way to the others. */
export function UserViewResults({
  environmentName,
  context,
  answer,
}: {
  environmentName: string;
  context: Context;
  /** undefined while the flags are on their way. */
  answer: { readonly flags?: readonly UserViewFlag[]; readonly error?: ApiError } | undefined;
}) {
  const [text, setText] = useState('');
  const [reason, setReason] = useState('');
  const [page, setPage] = useState(0);
  const who = typeof context.targetingKey === 'string' ? context.targetingKey : undefined;
  const title = `Flags for ${who ?? 'a user without a targeting key'} in ${environmentName}`;
  const kept = matching(answer?.flags ?? [], text, reason);
  const pages = Math.max(1, Math.ceil(kept.length / PAGE_SIZE));
  const shown = Math.min(page, pages - 1);
  const filter = (set: (value: string) => void) => (value: string) => {
    set(value);
    setPage(0);
  };
  return (
    <section aria-labelledby="user-view-title" aria-busy={answer === undefined}>
      <h2 id="user-view-title">{title}</h2>
      {answer?.error ? (
        <LoadError error={answer.error} />
      ) : answer?.flags === undefined ? (
        <Loading what="flags" />
      ) : (
        <>
          <MissingKeyNote flags={answer.flags} />
          <div className="filters">
            <label>
              Find a flag
              <input type="search" value={text} onChange={(e) => filter(setText)(e.target.value)} />
            </label>
            <label>
              Reason
              <select value={reason} onChange={(e) => filter(setReason)(e.target.value)}>
                <Options choices={REASON_CHOICES} />
              </select>
            </label>
          </div>
          <p className="muted" role="status">
            {kept.length === 0
              ? 'No flag matches.'
              : `${pageRange(
                  {
                    items: kept.slice(shown * PAGE_SIZE, (shown + 1) * PAGE_SIZE),
                    total: kept.length,
                    offset: shown * PAGE_SIZE,
                  },
                  'flags',
                )}${kept.length < answer.flags.length ? ` (of ${formatted(answer.flags.length)} in all)` : ''}`}
          </p>
          <FlagResults flags={kept.slice(shown * PAGE_SIZE, (shown + 1) * PAGE_SIZE)} />
          {pages > 1 && <PageButtons page={shown} pages={pages} onPage={setPage} />}
        </>
      )}
    </section>
  );
}

/** OFREP answers an error, not the default, where only a targeting key was missing to split users. */
function MissingKeyNote({ flags }: { flags: readonly UserViewFlag[] }) {
  const count = flags.filter((f) => f.ofrepErrorCode === 'TARGETING_KEY_MISSING').length;
  if (count === 0) return null;
  return (
    <div className="notice" role="note">
      <p>
        <strong>
          {count} {count === 1 ? 'flag splits' : 'flags split'} users by targetingKey, and this user has none.
        </strong>{' '}
        Over OFREP they answer the error <code>TARGETING_KEY_MISSING</code> instead of the default shown here.
      </p>
    </div>
  );
}

/** One page of flags: each with its value, variant, reason and what decided it. */
function FlagResults({ flags }: { flags: readonly UserViewFlag[] }) {
  const { project } = useProject();
  return (
    <ResourceTable
      caption="Flags for this user"
      rows={flags}
      rowKey={(f) => f.key}
      empty={<Empty title="No flags to show" />}
      columns={[
        {
          header: 'Flag',
          className: 'strong',
          cell: (f) => (
            <>
              <Link to={`/projects/${encodeURIComponent(project.key)}/flags/${encodeURIComponent(f.key)}`}>
                {f.name}
              </Link>
              <div className="muted small mono">{f.key}</div>
            </>
          ),
        },
        { header: 'Value', cell: (f) => <code>{JSON.stringify(f.value)}</code> },
        { header: 'Variant', cell: (f) => f.variant ?? <span className="muted">none</span> },
        {
          header: 'Reason',
          cell: (f) => (
            <>
              <code>{f.reason}</code>
              <div className="muted small">{REASON_WORDS[f.reason] ?? ''}</div>
            </>
          ),
        },
        { header: 'Decided by', cell: (f) => <DecidedBy decision={f} /> },
      ]}
    />
  );
}

/** Previous and next page, styled as the API-paged lists' pager (kit/pager.tsx). */
function PageButtons({
  page,
  pages,
  onPage,
}: {
  page: number;
  pages: number;
  onPage: (page: number) => void;
}) {
  return (
    <nav className="pager" aria-label="Pages of flags">
      {page > 0 && (
        <button type="button" className="btn" onClick={() => onPage(page - 1)}>
          Previous page
        </button>
      )}
      {page + 1 < pages && (
        <button type="button" className="btn" onClick={() => onPage(page + 1)}>
          Next page
        </button>
      )}
    </nav>
  );
}
