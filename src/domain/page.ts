/** A page request: at most `limit` items after the opaque `cursor`, or before `before`. */
export interface PageRequest {
  readonly limit: number;
  readonly cursor?: string | undefined;
  /** The page that ends just before this cursor (a page's `previousCursor`); not with `cursor`. */
  readonly before?: string | undefined;
  /** Count the matching items too: `total`, `offset` and `previousCursor` (docs/decisions/1800). */
  readonly counted?: boolean | undefined;
}

/** One page of a list, in the list's order. */
export interface Page<T> {
  readonly items: readonly T[];
  /** Set when more items remain. */
  readonly nextCursor?: string;
  /** Counted pages: set when items come before this page; the `before` of the page before it. */
  readonly previousCursor?: string;
  /** Counted pages: how many items match, on every page together. */
  readonly total?: number;
  /** Counted pages: how many matching items come before this page's first. */
  readonly offset?: number;
}
