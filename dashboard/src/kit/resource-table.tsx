import type { ReactNode } from 'react';
import type { ApiError, Loaded, Page } from '../api.ts';
import { Link } from '../router.tsx';
import { LoadError, Loading } from '../ui.tsx';
import { ErrorSummary } from './field.tsx';

export interface Column<T> {
  /** The column's heading; give a visually hidden one to a column of buttons. */
  readonly header: ReactNode;
  /** The heading as text, for a heading that is not plain text: the label its cells show on a phone. */
  readonly label?: string;
  readonly cell: (row: T) => ReactNode;
  readonly className?: string;
}

/** The heading of a column of buttons: only screen readers read it. */
export const ACTIONS_HEADER = <span className="visually-hidden">Actions</span>;

/** The column of a row's buttons. */
export const actionsColumn = <T,>(cell: (row: T) => ReactNode): Column<T> => ({
  header: ACTIONS_HEADER,
  className: 'row-actions',
  cell,
});

/** The column naming each row: its name, a link to its own page (`hrefOf`), and its key under it. */
export const nameColumn = <T extends { key: string; name: string }>(
  header: string,
  hrefOf: (row: T) => string,
): Column<T> => ({
  header,
  cell: (row) => (
    <>
      <Link to={hrefOf(row)} className="strong">
        {row.name}
      </Link>
      <div className="muted small">
        <code>{row.key}</code>
      </div>
    </>
  ),
});

/** A table's column headings, for a table whose rows are not a plain list of resources. */
export function TableHead({ headers }: { headers: readonly ReactNode[] }) {
  return (
    <thead>
      <tr>
        {headers.map((header, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the headings are fixed for the table's life
          <th scope="col" key={i}>
            {header}
          </th>
        ))}
      </tr>
    </thead>
  );
}

/** Rows are told apart by their id (every resource the API lists has one), or else by `rowKey`. */
/** A loaded page of a list (usePage) as a table's `of`: the page's items, its error and how to retry. */
export const itemsOf = <T,>(
  page: Loaded<Page<T>>,
): Pick<Loaded<readonly T[]>, 'data' | 'error' | 'reload'> => ({
  data: page.data?.items,
  error: page.error,
  reload: page.reload,
});

type RowKey<T> = T extends { readonly id: string }
  ? { rowKey?: (row: T) => string }
  : { rowKey: (row: T) => string };

type TableProps<T> = Omit<Parameters<typeof TableOrState<T>>[0], 'rowKey'> & RowKey<T>;

const byId = (row: unknown): string => (row as { id: string }).id;

/** A column heading as the label its cells show when rows stack on a phone; none for a column of buttons. */
const labelOf = (header: ReactNode): string | undefined => (typeof header === 'string' ? header : undefined);

/**
 * A list of resources as a table, with its other states: loading, failed (with a retry) and
 * empty (what to show instead of a table with no rows). Above it, `problem`: what the API
 * answered to the last thing done to a row. Wide tables scroll in their own box.
 */
export function ResourceTable<T>({
  problem,
  rowKey = byId,
  ...table
}: TableProps<T> & { problem?: ApiError | undefined }) {
  return (
    <>
      <ErrorSummary problem={problem} />
      <TableOrState {...table} rowKey={rowKey} />
    </>
  );
}

/** One row: its cells, each under its column's heading on a phone, or the one wide cell replacing them. */
function TableRow<T>({
  row,
  columns,
  replaced,
  className,
}: {
  row: T;
  columns: readonly Column<T>[];
  replaced: ReactNode | undefined;
  className: string | undefined;
}) {
  return (
    <tr className={className}>
      {replaced !== undefined ? (
        <td colSpan={columns.length}>{replaced}</td>
      ) : (
        columns.map((c, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: columns are fixed for the table's life
          <td key={i} className={c.className} data-label={c.label ?? labelOf(c.header)}>
            {c.cell(row)}
          </td>
        ))
      )}
    </tr>
  );
}

/** The table, or instead its loading, failed or empty state. */
function TableOrState<T>({
  caption,
  columns,
  of,
  rows = of?.data,
  rowKey,
  what = caption.toLowerCase(),
  error = of?.error,
  retry = of?.reload,
  empty,
  rowClassName,
  replaceRow,
}: {
  /** Read by screen readers only. */
  caption: string;
  columns: readonly (Column<T> | false)[];
  /** The loaded list (useApi): its rows, its error and how to retry, unless those are given. */
  of?: Pick<Loaded<readonly T[]>, 'data' | 'error' | 'reload'>;
  /** undefined while loading. */
  rows?: readonly T[] | undefined;
  rowKey: (row: T) => string;
  /** For "Loading …"; default: the caption in lower case. */
  what?: string;
  error?: ApiError | undefined;
  retry?: () => void;
  empty: ReactNode;
  rowClassName?: (row: T) => string | undefined;
  /** A row shown as one wide cell instead (e.g. the row's inline edit form), when this returns one. */
  replaceRow?: (row: T) => ReactNode | undefined;
}) {
  if (error) return <LoadError error={error} retry={retry} />;
  if (rows === undefined) return <Loading what={what} />;
  if (rows.length === 0) return <>{empty}</>;
  const shown = columns.filter((c): c is Column<T> => c !== false);
  return (
    <div className="table-wrap">
      {/* On a phone each row stacks into a card, its cells under their column's heading. */}
      <table className="stacks-on-phone">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {shown.map((c, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: columns are fixed for the table's life
              <th scope="col" key={i} className={c.className}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <TableRow
              key={rowKey(row)}
              row={row}
              columns={shown}
              replaced={replaceRow?.(row)}
              className={rowClassName?.(row)}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * The box of a table that may scroll sideways on a phone: it takes focus, so that keyboard users
 * scroll it too (axe: scrollable-region-focusable), and `label` names it.
 */
export function ScrollRegion({ label, children }: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus (see above)
    <section className="table-wrap" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}

/**
 * A table whose rows are not a plain list of resources, in a ScrollRegion named by its caption;
 * on a phone each row stacks into a card. `children` are its rows; `captionHidden` leaves the
 * caption to screen readers where a heading above already says it.
 */
export function StackingTable({
  caption,
  captionHidden = false,
  headers,
  children,
}: {
  caption: string;
  captionHidden?: boolean;
  headers: readonly ReactNode[];
  children: ReactNode;
}) {
  return (
    <ScrollRegion label={caption}>
      <table className="stacks-on-phone">
        <caption className={captionHidden ? 'visually-hidden' : undefined}>{caption}</caption>
        <TableHead headers={headers} />
        <tbody>{children}</tbody>
      </table>
    </ScrollRegion>
  );
}
