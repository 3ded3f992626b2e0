import type { FieldError } from '../domain/errors.ts';
import type { FlagEnvironment, FlagMetadata, FlagType, JsonValue, Variant } from '../domain/flag.ts';
import { isJsonObject } from '../domain/json.ts';
import { KEY_PATTERN, KEY_REGEX } from '../domain/keys.ts';
import { flagEntries, reviewFlagdDocument, type TargetingReview } from './validate-flagd-document.ts';

/** One flag of a flagd document, as Flagstaff stores it for the environment it is imported into. */
export interface ImportedFlag {
  readonly key: string;
  readonly type: FlagType;
  readonly variants: readonly Variant[];
  readonly metadata: FlagMetadata;
  readonly environment: FlagEnvironment;
}

/**
 * A flag the document carries that will not work as its author probably meant. `PARSE_ERROR`: its
 * targeting cannot be built, so it evaluates with that error; otherwise flagd evaluates what is
 * written (an operator yielding null, a weight clamped to 0) and so does Flagstaff.
 */
export interface FlagdImportWarning {
  readonly flag: string;
  readonly path: string;
  readonly message: string;
  readonly errorCode?: 'PARSE_ERROR';
}

/** The flags of a document, or (when `errors` is not empty) none: an import is all or nothing. */
export interface FlagdImport {
  readonly flags: readonly ImportedFlag[];
  readonly errors: readonly FieldError[];
  readonly warnings: readonly FlagdImportWarning[];
}

export interface FlagdImportOptions {
  /** Refuse the document when any flag draws a warning, instead of storing it as written. */
  readonly strict?: boolean;
}

type JsonObject = Readonly<Record<string, JsonValue>>;

function typeOf(variants: JsonObject): FlagType {
  // The schema has made every variant value of one type.
  const first = Object.values(variants)[0];
  if (typeof first === 'boolean') return 'boolean';
  if (typeof first === 'string') return 'string';
  if (typeof first === 'number') return 'number';
  return 'object';
}

function metadataOf(value: JsonValue | undefined): Record<string, string | number | boolean> {
  if (!isJsonObject(value)) return {};
  const result: Record<string, string | number | boolean> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') result[key] = item;
  }
  return result;
}

/** flagd ignores targeting that is absent or has no keys (`{}`); such a flag serves its default as `static`. */
const hasTargeting = (targeting: JsonValue | undefined): targeting is JsonValue =>
  Boolean(targeting) && Object.keys(targeting as object).length > 0;

/** The warnings of one flag's targeting review. */
function warningsOf(key: string, review: TargetingReview | undefined): FlagdImportWarning[] {
  if (review === undefined) return [];
  if (review.parseError !== undefined) {
    const { path, message } = review.parseError;
    return [
      {
        flag: key,
        path,
        message: `${message} (the flag evaluates with PARSE_ERROR)`,
        errorCode: 'PARSE_ERROR',
      },
    ];
  }
  return review.notes.map(({ path, message }) => ({ flag: key, path, message }));
}

/**
 * Turns a flagd document into Flagstaff flags for one environment (pure: no storage). Per flag:
 * `enabled` from `state`, `defaultVariant` (empty or null: none), no `offVariant` (flagd serves no
 * value for a disabled flag), `targeting` kept as JsonLogic with `$ref`s inlined, and metadata of the
 * flag set overridden by the flag's own, as flagd merges them. A flag whose targeting cannot work is
 * imported as written, with a warning (decision 0102); `strict` refuses the document instead.
 */
export function importFlagd(document: unknown, options: FlagdImportOptions = {}): FlagdImport {
  const review = reviewFlagdDocument(document);
  if (review.errors.length > 0) return { flags: [], errors: review.errors, warnings: [] };
  const root = document as JsonObject;
  const setMetadata = metadataOf(root.metadata);
  const flags: ImportedFlag[] = [];
  const problems: FieldError[] = [];
  const warnings: FlagdImportWarning[] = [];
  for (const { key, path, flag } of flagEntries(root)) {
    if (!KEY_REGEX.test(key)) {
      problems.push({ path, message: `flag key "${key}" is not a Flagstaff key (${KEY_PATTERN})` });
      continue;
    }
    const targeting = review.targeting.get(path);
    warnings.push(...warningsOf(key, targeting));
    const values = flag.variants as JsonObject;
    const variants: Variant[] = Object.entries(values).map(([variant, value]) => ({ key: variant, value }));
    const defaultVariant =
      typeof flag.defaultVariant === 'string' && flag.defaultVariant !== '' ? flag.defaultVariant : null;
    const environment: FlagEnvironment = {
      enabled: flag.state === 'ENABLED',
      offVariant: null,
      defaultVariant,
      targets: [],
      rules: [],
      ...(targeting !== undefined && hasTargeting(targeting.targeting)
        ? { targeting: targeting.targeting }
        : {}),
    };
    flags.push({
      key,
      type: typeOf(values),
      variants,
      metadata: { ...setMetadata, ...metadataOf(flag.metadata) },
      environment,
    });
  }
  if (options.strict === true) {
    for (const warning of warnings) {
      problems.push({ path: warning.path, message: `flag "${warning.flag}": ${warning.message}` });
    }
  }
  if (problems.length > 0) return { flags: [], errors: problems, warnings: [] };
  return { flags, errors: [], warnings };
}

/**
 * The document's variants over the stored ones: values of variants it names are replaced, new
 * ones are added, and the others kept (other environments may serve them). Names and
 * descriptions survive, since flagd has none.
 */
export function mergeVariants(stored: readonly Variant[], imported: readonly Variant[]): Variant[] {
  const byKey = new Map(imported.map((v) => [v.key, v]));
  const merged = stored.map((v) => {
    const from = byKey.get(v.key);
    return from === undefined ? v : { ...v, value: from.value };
  });
  const known = new Set(stored.map((v) => v.key));
  return [...merged, ...imported.filter((v) => !known.has(v.key))];
}
