import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FieldError } from '../domain/errors.ts';
import type { JsonValue } from '../domain/flag.ts';
import { isJsonObject, keyOfPointerToken, pointerToken } from '../domain/json.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../domain/json-depth.ts';
import {
  targetingLint,
  targetingParseError,
  validateTargeting,
} from '../evaluation/jsonlogic/compile-targeting.ts';
import { resolveEvaluators } from './resolve-evaluators.ts';
import flagsSchema from './schemas/flags.json' with { type: 'json' };
import targetingSchema from './schemas/targeting.json' with { type: 'json' };

const FLAGS_ID = 'https://flagd.dev/schema/v0/flags.json';

/** One flag of a document with where it sits (`/flags/<key>` or `/flags/<index>`). */
export interface FlagdFlagEntry {
  readonly key: string;
  readonly path: string;
  readonly flag: Readonly<Record<string, JsonValue>>;
}

/**
 * flagd's targeting schema where flagd's evaluation has moved past it (docs/product.md §6, decision 0102):
 * `sem_ver` takes any arguments (v prefixes, partial versions, numbers; a wrong operator or count
 * yields null), `starts_with`/`ends_with` any number of arguments (null unless two), and a
 * `fractional` weight any integer (negatives count as 0). Everything else is flagd's own schema.
 */
function relaxedTargetingSchema(): typeof targetingSchema {
  const schema = structuredClone(targetingSchema) as typeof targetingSchema & {
    definitions: Record<string, Record<string, unknown>>;
  };
  const anyArguments = { type: 'array', items: { $ref: '#/definitions/args' } };
  const definitions = schema.definitions;
  (definitions.ruleSemVer as { properties: Record<string, unknown> }).properties.sem_ver = anyArguments;
  (definitions as Record<string, unknown>).stringCompareArgs = anyArguments;
  (definitions.fractionalWeightArg as { items: unknown[] }).items[1] = {
    oneOf: [{ type: 'integer' }, { $ref: '#/definitions/anyRule' }],
  };
  return schema;
}

// Compiled once per process: ajv turns the schemas into functions.
let validators: { provider: ValidateFunction; daemon: ValidateFunction } | undefined;

function compiledValidators() {
  if (!validators) {
    // strict: false because flagd's schemas use tuple `items` without `maxItems`, which ajv's strict mode refuses.
    const ajv = new Ajv({ allErrors: true, strict: false });
    ajv.addSchema(relaxedTargetingSchema());
    ajv.addSchema(flagsSchema);
    validators = {
      provider: ajv.getSchema(FLAGS_ID) as ValidateFunction,
      daemon: ajv.compile({ $ref: `${FLAGS_ID}#/definitions/flagdConfig` }),
    };
  }
  return validators;
}

/**
 * flagd has two document schemas: flags.json (flags as a map, what providers read) and flagd.json
 * (the daemon's, which also allows a list of flags with `key`s). A document names its schema in
 * `$schema`; one naming flags.json gets that schema, any other the daemon's.
 */
function declaresProviderSchema(document: Record<string, JsonValue>): boolean {
  const declared = document.$schema;
  return typeof declared === 'string' && /(^|\/)flags\.json$/.test(declared);
}

/** The flags of a (schema-valid) document, in document order. */
export function flagEntries(document: Readonly<Record<string, JsonValue>>): FlagdFlagEntry[] {
  const flags = document.flags;
  if (Array.isArray(flags)) {
    return flags.flatMap((flag, i) =>
      isJsonObject(flag) && typeof flag.key === 'string'
        ? [{ key: flag.key, path: `/flags/${i}`, flag }]
        : [],
    );
  }
  if (!isJsonObject(flags)) return [];
  return Object.entries(flags).flatMap(([key, flag]) =>
    isJsonObject(flag) ? [{ key, path: `/flags/${pointerToken(key)}`, flag }] : [],
  );
}

const VARIANT_TYPE = /^(\/flags\/[^/]+)\/variants\/[^/]+$/;
const TARGETING = /^(\/flags\/[^/]+\/targeting|\/\$evaluators\/[^/]+)(\/.*)?$/;
const COMBINATORS = new Set(['anyOf', 'oneOf', 'allOf', 'if']);

const variantType = (value: JsonValue): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;

function describe(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties')
    return `${error.message}: "${String(params.additionalProperty)}"`;
  if (error.keyword === 'enum') return `${error.message}: ${(params.allowedValues as unknown[]).join(', ')}`;
  return error.message ?? error.keyword;
}

/** ajv's errors on flagd's anyOf-heavy schemas, reduced to one readable message per problem. */
function readableErrors(
  errors: readonly ErrorObject[],
  document: Record<string, JsonValue>,
  validatesDaemon: boolean,
): FieldError[] {
  const result: FieldError[] = [];
  const seen = new Set<string>();
  const add = (path: string, message: string) => {
    const id = `${path}\n${message}`;
    if (!seen.has(id)) {
      seen.add(id);
      result.push({ path, message });
    }
  };
  const targetingRoots = new Set<string>();
  for (const error of errors) {
    const path = error.instancePath;
    const targeting = TARGETING.exec(path);
    if (targeting) {
      targetingRoots.add(targeting[1] as string);
      continue;
    }
    const variant = VARIANT_TYPE.exec(path);
    if (variant && error.keyword === 'type') {
      // Each typed branch of flagd's anyOf reports the values it dislikes; only mixed types are the problem.
      const variants = pointer(document, `${variant[1]}/variants`);
      if (isJsonObject(variants) && new Set(Object.values(variants).map(variantType)).size > 1) {
        add(
          `${variant[1]}/variants`,
          'variants must all be booleans, all strings, all numbers or all objects',
        );
      }
      continue;
    }
    // The daemon schema offers a map or a list of flags: the alternative not taken is no news.
    if (
      path === '/flags' &&
      error.keyword === 'type' &&
      error.params.type === (Array.isArray(document.flags) ? 'object' : 'array') &&
      validatesDaemon
    ) {
      continue;
    }
    if (path === '/flags' && error.keyword === 'type' && Array.isArray(document.flags)) {
      add(
        path,
        `must be an object keyed by flag key: this document declares ${String(document.$schema)}, and only flagd.json (the daemon's schema) allows a list of flags`,
      );
      continue;
    }
    if (!COMBINATORS.has(error.keyword)) add(path || '/', describe(error));
  }
  for (const root of targetingRoots) {
    const logic = pointer(document, root);
    const found = logic === undefined ? [] : validateTargeting(logic);
    if (found.length > 0) for (const error of found) add(`${root}${error.path}`, error.message);
    else add(root, 'is not valid flagd targeting (JsonLogic with flagd operators)');
  }
  if (result.length === 0) {
    for (const error of errors) add(error.instancePath || '/', describe(error));
  }
  return result;
}

function pointer(document: JsonValue, path: string): JsonValue | undefined {
  let value: JsonValue | undefined = document;
  for (const raw of path.split('/').slice(1)) {
    const token = keyOfPointerToken(raw);
    if (Array.isArray(value)) value = value[Number(token)];
    else if (isJsonObject(value)) value = value[token];
    else return undefined;
  }
  return value;
}

/** One flag's targeting as Flagstaff stores it, and what is wrong with it. */
export interface TargetingReview {
  /** `$ref`s inlined where they resolve, left as written where they do not. */
  readonly targeting: JsonValue;
  /** Why flagd cannot build this targeting: the flag then evaluates with PARSE_ERROR. */
  readonly parseError?: FieldError;
  /** Some `$ref` names no evaluator or closes a cycle (the parse error says which). */
  readonly unresolved?: true;
  /** Operators flagd evaluates to null (or weights it clamps to 0) as written, which its schema refuses. */
  readonly notes: readonly FieldError[];
}

/** A document checked as an import needs it: what refuses it, and each flag's targeting. */
export interface FlagdDocumentReview {
  /** Problems that refuse the whole document (schema, keys, default variants, depth). */
  readonly errors: readonly FieldError[];
  /** By flag path (`/flags/<key>` or `/flags/<index>`), for flags with targeting. */
  readonly targeting: ReadonlyMap<string, TargetingReview>;
}

const prefixed = (root: string, error: FieldError): FieldError => ({
  path: `${root}${error.path}`,
  message: error.message,
});

/** Each flag's targeting with its `$ref`s resolved and checked, as flagd resolves them before it validates. */
function reviewTargeting(
  document: Record<string, JsonValue>,
  errors: FieldError[],
): Map<string, TargetingReview> {
  const evaluators = isJsonObject(document.$evaluators) ? document.$evaluators : {};
  const reviews = new Map<string, TargetingReview>();
  for (const { path, flag } of flagEntries(document)) {
    if (flag.targeting === undefined) continue;
    const root = `${path}/targeting`;
    const resolved = resolveEvaluators(flag.targeting, evaluators, root);
    if (resolved.tooDeep) {
      errors.push(resolved.tooDeep);
      continue;
    }
    const [unresolved] = resolved.errors;
    const parseError = unresolved ?? targetingParseError(resolved.value);
    reviews.set(path, {
      targeting: resolved.value,
      ...(parseError === undefined
        ? { notes: targetingLint(resolved.value).map((e) => prefixed(root, e)) }
        : {
            parseError: unresolved ?? prefixed(root, parseError),
            notes: [],
            ...(unresolved === undefined ? {} : { unresolved: true as const }),
          }),
    });
  }
  return reviews;
}

/**
 * The document as the schema sees it: targeting with `$ref`s inlined (flagd validates after
 * substituting them), and without the targeting of flags whose `$ref`s do not resolve: what a
 * reference would have brought is unknown, and such a flag evaluates with PARSE_ERROR anyway.
 */
function forSchema(
  document: Record<string, JsonValue>,
  reviews: ReadonlyMap<string, TargetingReview>,
): Record<string, JsonValue> {
  const resolveFlag = (flag: JsonValue, path: string): JsonValue => {
    const review = reviews.get(path);
    if (!isJsonObject(flag) || review === undefined) return flag;
    if (review.unresolved === undefined) return { ...flag, targeting: review.targeting };
    const { targeting: _broken, ...rest } = flag;
    return rest;
  };
  const flags = document.flags;
  if (Array.isArray(flags)) {
    return { ...document, flags: flags.map((flag, i) => resolveFlag(flag, `/flags/${i}`)) };
  }
  if (isJsonObject(flags)) {
    return {
      ...document,
      flags: Object.fromEntries(
        Object.entries(flags).map(([key, flag]) => [key, resolveFlag(flag, `/flags/${pointerToken(key)}`)]),
      ),
    };
  }
  return document;
}

/** What flagd refuses beyond its schema: default variants it lacks, duplicate keys. */
function semanticErrors(document: Record<string, JsonValue>): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  for (const { key, path, flag } of flagEntries(document)) {
    if (seen.has(key)) errors.push({ path: `${path}/key`, message: `duplicate flag key "${key}"` });
    seen.add(key);
    const variants = isJsonObject(flag.variants) ? flag.variants : {};
    const defaultVariant = flag.defaultVariant;
    // flagd reads an empty defaultVariant as none.
    if (
      typeof defaultVariant === 'string' &&
      defaultVariant !== '' &&
      !Object.hasOwn(variants, defaultVariant)
    ) {
      errors.push({
        path: `${path}/defaultVariant`,
        message: `"${defaultVariant}" is not one of the flag's variants`,
      });
    }
  }
  return errors;
}

/** Room for the document's own levels (flags, a flag, its targeting) above targeting's MAX_JSON_DEPTH. */
const DOCUMENT_DEPTH = MAX_JSON_DEPTH + 8;

/**
 * Checks a flagd flag-definition document as flagd loads it: flagd's JSON schemas (relaxed where
 * flagd's evaluation has moved past them, see relaxedTargetingSchema), then what flagd itself
 * refuses. Targeting that cannot work does not refuse the document: it is reported per flag
 * (flagd loads such a document, and the flag answers PARSE_ERROR). See declaresProviderSchema for
 * which of flagd's two schemas applies. Nothing here recurses deeper than DOCUMENT_DEPTH.
 */
export function reviewFlagdDocument(document: unknown): FlagdDocumentReview {
  const refused = (errors: FieldError[]): FlagdDocumentReview => ({ errors, targeting: new Map() });
  if (!isJsonObject(document))
    return refused([{ path: '/', message: 'a flagd document is a JSON object with "flags"' }]);
  if (nestsDeeperThan(document, DOCUMENT_DEPTH)) {
    return refused([{ path: '/', message: `the document nests deeper than ${DOCUMENT_DEPTH} levels` }]);
  }
  const depthErrors: FieldError[] = [];
  const reviews = reviewTargeting(document, depthErrors);
  if (depthErrors.length > 0) return refused(depthErrors);
  const resolved = forSchema(document, reviews);
  const { provider, daemon } = compiledValidators();
  const validatesDaemon = !declaresProviderSchema(document);
  const validate = validatesDaemon ? daemon : provider;
  if (!validate(resolved)) return refused(readableErrors(validate.errors ?? [], resolved, validatesDaemon));
  const errors = semanticErrors(resolved);
  return errors.length > 0 ? refused(errors) : { errors: [], targeting: reviews };
}
