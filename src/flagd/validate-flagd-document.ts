import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FieldError } from '../domain/errors.ts';
import type { JsonValue } from '../domain/flag.ts';
import { validateTargeting } from '../evaluation/jsonlogic/compile-targeting.ts';
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

// Compiled once per process: ajv turns the schemas into functions.
let validators: { provider: ValidateFunction; daemon: ValidateFunction } | undefined;

function compiledValidators() {
  if (!validators) {
    // strict: false because flagd's schemas use tuple `items` without `maxItems`, which ajv's strict mode refuses.
    const ajv = new Ajv({ allErrors: true, strict: false });
    ajv.addSchema(targetingSchema);
    ajv.addSchema(flagsSchema);
    validators = {
      provider: ajv.getSchema(FLAGS_ID) as ValidateFunction,
      daemon: ajv.compile({ $ref: `${FLAGS_ID}#/definitions/flagdConfig` }),
    };
  }
  return validators;
}

const isRecord = (value: unknown): value is Record<string, JsonValue> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

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
      isRecord(flag) && typeof flag.key === 'string' ? [{ key: flag.key, path: `/flags/${i}`, flag }] : [],
    );
  }
  if (!isRecord(flags)) return [];
  return Object.entries(flags).flatMap(([key, flag]) =>
    isRecord(flag) ? [{ key, path: `/flags/${escapeToken(key)}`, flag }] : [],
  );
}

const escapeToken = (token: string): string => token.replaceAll('~', '~0').replaceAll('/', '~1');

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
      if (isRecord(variants) && new Set(Object.values(variants).map(variantType)).size > 1) {
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
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(value)) value = value[Number(token)];
    else if (isRecord(value)) value = value[token];
    else return undefined;
  }
  return value;
}

/**
 * The document with `$ref`s in targeting replaced by their evaluators, as flagd does before it
 * validates (so `"targeting": {"$ref": "x"}` is fine), and the references it could not resolve.
 */
function withEvaluators(document: Record<string, JsonValue>): {
  resolved: Record<string, JsonValue>;
  errors: FieldError[];
} {
  const evaluators = isRecord(document.$evaluators) ? document.$evaluators : {};
  const errors: FieldError[] = [];
  const resolveFlag = (flag: JsonValue, path: string): JsonValue => {
    if (!isRecord(flag) || flag.targeting === undefined) return flag;
    const result = resolveEvaluators(flag.targeting, evaluators, `${path}/targeting`);
    errors.push(...result.errors);
    return { ...flag, targeting: result.value };
  };
  const flags = document.flags;
  let resolvedFlags: JsonValue | undefined = flags;
  if (Array.isArray(flags)) resolvedFlags = flags.map((flag, i) => resolveFlag(flag, `/flags/${i}`));
  else if (isRecord(flags)) {
    resolvedFlags = Object.fromEntries(
      Object.entries(flags).map(([key, flag]) => [key, resolveFlag(flag, `/flags/${escapeToken(key)}`)]),
    );
  }
  return { resolved: resolvedFlags === undefined ? document : { ...document, flags: resolvedFlags }, errors };
}

/** What flagd refuses beyond its schema: default variants it lacks, duplicate keys, targeting it cannot build. */
function semanticErrors(document: Record<string, JsonValue>): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  for (const { key, path, flag } of flagEntries(document)) {
    if (seen.has(key)) errors.push({ path: `${path}/key`, message: `duplicate flag key "${key}"` });
    seen.add(key);
    const variants = isRecord(flag.variants) ? flag.variants : {};
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
    if (flag.targeting === undefined) continue;
    for (const error of validateTargeting(flag.targeting)) {
      errors.push({ path: `${path}/targeting${error.path}`, message: error.message });
    }
  }
  return errors;
}

/**
 * Problems with a flagd flag-definition document (JSON pointer + message), empty when it is valid:
 * flagd's JSON schemas first, then what flagd itself would refuse. See declaresProviderSchema for
 * which of flagd's two schemas applies.
 */
export function validateFlagdDocument(document: unknown): FieldError[] {
  if (!isRecord(document)) return [{ path: '/', message: 'a flagd document is a JSON object with "flags"' }];
  const { resolved, errors } = withEvaluators(document);
  if (errors.length > 0) return errors;
  const { provider, daemon } = compiledValidators();
  const validatesDaemon = !declaresProviderSchema(document);
  const validate = validatesDaemon ? daemon : provider;
  if (!validate(resolved)) return readableErrors(validate.errors ?? [], resolved, validatesDaemon);
  return semanticErrors(resolved);
}
