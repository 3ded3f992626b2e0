import { type ChangeNotice, type FlagChange, RESYNC } from './change-feed.ts';

// The NOTIFY payloads of PostgreSQL's change feed (migration 0005, `bumpRevision`):
//   k                                   some API key changed
//   p:<projectId>:                      the project was deleted
//   p:<projectId>:<revision>[:<part>/<parts>][:w:<flag ids>][:r:<flag keys>]
// ids and keys comma-separated (neither holds a colon or a comma). A payload must stay under
// PostgreSQL's 8,000 bytes, so a write of many flags (a flagd import: 500 ids of 30 characters)
// is announced in parts, all sent in its transaction and so delivered together, in order.

/** Room for the ids and keys of one payload, under PostgreSQL's limit with the prefix. */
const LIST_BYTES = 7000;

/** A payload as read: a whole notice, or one part of one. */
export type ParsedNotice =
  | ChangeNotice
  | {
      readonly kind: 'part';
      readonly projectId: string;
      readonly revision: number;
      /** 1-based. */
      readonly part: number;
      readonly parts: number;
      readonly written: readonly string[];
      readonly removed: readonly string[];
    };

/** The lists of `change` cut into groups that each fit one payload (at least one group). */
function groups(change: FlagChange): FlagChange[] {
  const cut: FlagChange[] = [];
  let written: string[] = [];
  let removed: string[] = [];
  let bytes = 0;
  const add = (kind: 'written' | 'removed', item: string) => {
    if (bytes + item.length + 1 > LIST_BYTES && written.length + removed.length > 0) {
      cut.push({ written, removed });
      written = [];
      removed = [];
      bytes = 0;
    }
    (kind === 'written' ? written : removed).push(item);
    bytes += item.length + 1;
  };
  for (const id of change.written) add('written', id);
  for (const key of change.removed) add('removed', key);
  cut.push({ written, removed });
  return cut;
}

/** The NOTIFY payloads announcing a revision bump, in the order to send them: what `parseNotice` reads back. */
export function encodeNotice(projectId: string, revision: number, change: FlagChange | undefined): string[] {
  const prefix = `p:${projectId}:${revision}`;
  if (change === undefined) return [prefix];
  const cut = groups(change);
  return cut.map(({ written, removed }, index) => {
    const part = cut.length === 1 ? '' : `:${index + 1}/${cut.length}`;
    const w = written.length === 0 ? '' : `:w:${written.join(',')}`;
    const r = removed.length === 0 ? '' : `:r:${removed.join(',')}`;
    // An empty change (a write of no flags) still says so, so no node reloads the project for it.
    return `${prefix}${part}${w}${r}${w === '' && r === '' ? ':w:' : ''}`;
  });
}

const PROJECT = /^p:([^:]+):(\d*)(?::(\d+)\/(\d+))?(?::w:([^:]*))?(?::r:([^:]+))?$/;

const list = (text: string | undefined) => (text === undefined || text === '' ? [] : text.split(','));

/** One payload; anything not understood asks for a full comparison. */
export function parseNotice(payload: string | undefined): ParsedNotice {
  if (payload === 'k') return { kind: 'keys' };
  const match = PROJECT.exec(payload ?? '');
  if (match === null) return RESYNC;
  const [, projectId, revision, part, parts, written, removed] = match as unknown as [
    string,
    string,
    string,
    string?,
    string?,
    string?,
    string?,
  ];
  if (revision === '') return { kind: 'project', projectId, revision: undefined };
  const flags =
    written === undefined && removed === undefined ? {} : { written: list(written), removed: list(removed) };
  if (part === undefined) return { kind: 'project', projectId, revision: Number(revision), ...flags };
  return {
    kind: 'part',
    projectId,
    revision: Number(revision),
    part: Number(part),
    parts: Number(parts),
    written: list(written),
    removed: list(removed),
  };
}

/**
 * Puts notices sent in parts back together. The parts of one write arrive together and in
 * order; a part that never comes (a notice lost) leaves its notice unfinished until the next
 * notice of that project replaces it, and the feed's periodic comparison catches up meanwhile.
 */
export class NoticeParts {
  readonly #unfinished = new Map<
    string,
    { revision: number; next: number; written: string[]; removed: string[] }
  >();

  /** The notice `payload` completes, if it completes one; undefined while parts are missing. */
  add(payload: string | undefined): ChangeNotice | undefined {
    const parsed = parseNotice(payload);
    if (parsed.kind !== 'part') {
      if (parsed.kind === 'project') this.#unfinished.delete(parsed.projectId);
      return parsed;
    }
    const { projectId, revision, part, parts } = parsed;
    let unfinished = this.#unfinished.get(projectId);
    if (part === 1) {
      unfinished = { revision, next: 1, written: [], removed: [] };
      this.#unfinished.set(projectId, unfinished);
    } else if (unfinished?.revision !== revision || unfinished.next !== part) {
      // A part without those before it cannot be completed: wait for the next notice.
      this.#unfinished.delete(projectId);
      return undefined;
    }
    unfinished.written.push(...parsed.written);
    unfinished.removed.push(...parsed.removed);
    unfinished.next = part + 1;
    if (part < parts) return undefined;
    this.#unfinished.delete(projectId);
    return { kind: 'project', projectId, revision, written: unfinished.written, removed: unfinished.removed };
  }
}
