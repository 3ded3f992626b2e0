/** A page request: at most `limit` items after the opaque `cursor`. */
export interface PageRequest {
  readonly limit: number;
  readonly cursor?: string | undefined;
}

/** One page of a list, in the list's order. */
export interface Page<T> {
  readonly items: readonly T[];
  /** Set when more items remain. */
  readonly nextCursor?: string;
}
