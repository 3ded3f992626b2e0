import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { FieldError } from '../domain/errors.ts';
import { findNul, type NulFound, nulMessage } from '../domain/nul-character.ts';
import { schemaErrors } from '../domain/schema-errors.ts';

/**
 * Bodies are validated strictly: unknown fields are refused, never stripped, and nothing is
 * coerced, so a typo or a wrong type is a 400. Query strings and path parameters are text by
 * nature, so their validator coerces ("10" → 10).
 */
function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerce ? 'array' : false,
    removeAdditional: false,
    useDefaults: coerce,
    strict: false,
  });
  (addFormats as unknown as (ajv: Ajv) => void)(ajv);
  return ajv;
}

const strict = makeAjv(false);
const coercing = makeAjv(true);

/** The error of a request part holding NUL (decision 1900), shaped as Fastify's validation errors are. */
export function nulRefusal(found: NulFound, part: string) {
  const error: ErrorObject = {
    keyword: 'nul',
    instancePath: found.pointer,
    schemaPath: '',
    params: {},
    message: nulMessage(found),
  };
  const shown = `${part === 'body' ? '' : `${part}:`}${found.pointer || '/'}`;
  return Object.assign(new Error(`The request is not valid: ${shown} ${error.message}.`), {
    statusCode: 400,
    code: NUL_CHARACTER,
    validation: [error],
    validationContext: part,
  });
}

/** The `code` of the error a NUL raises; OFREP answers it as INVALID_CONTEXT. */
export const NUL_CHARACTER = 'FLAGSTAFF_NUL_CHARACTER';

/** Whether a path or query part (names to text or lists of text) holds NUL anywhere: cheap, it runs on every request. */
function partHoldsNul(data: unknown): boolean {
  if (typeof data !== 'object' || data === null) return false;
  for (const name in data) {
    if (name.includes('\u0000')) return true;
    const value = (data as Record<string, unknown>)[name];
    if (typeof value === 'string' ? value.includes('\u0000') : value !== undefined && findNul(value))
      return true;
  }
  return false;
}

/**
 * The refusal of a request whose path or query parameters hold NUL, for the checks that read them
 * before validation: authorisation looks up what an id names, and a NUL fails that on PostgreSQL.
 */
export function nulInPathOrQuery(request: { readonly params: unknown; readonly query: unknown }) {
  for (const [part, data] of [
    ['params', request.params],
    ['querystring', request.query],
  ] as const) {
    const found = partHoldsNul(data) ? findNul(data) : undefined;
    if (found !== undefined) return nulRefusal(found, part);
  }
  return undefined;
}

/**
 * Path and query parameters holding NUL are refused before their schema runs (bodies are, as they
 * are parsed: json-body.ts), so no route and no database sees one (decision 1900).
 */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const validate = (httpPart === 'body' ? strict : coercing).compile(schema);
  if (httpPart === 'body') return validate as ReturnType<FastifySchemaCompiler<object>>;
  const checked = (data: unknown): boolean => {
    const found = partHoldsNul(data) ? findNul(data) : undefined;
    if (found !== undefined) {
      checked.errors = nulRefusal(found, httpPart ?? 'querystring').validation;
      return false;
    }
    const valid = validate(data) as boolean;
    checked.errors = validate.errors;
    return valid;
  };
  checked.errors = null as ErrorObject[] | null | undefined;
  return checked as unknown as ReturnType<FastifySchemaCompiler<object>>;
};

/** Turns Ajv errors into `{ path, message }` with JSON-pointer paths a person can follow (domain/schema-errors.ts). */
export function fieldErrors(errors: readonly ErrorObject[], part: string): FieldError[] {
  const prefix = part === 'body' ? '' : `${part}:`;
  return schemaErrors(errors).map((e) => ({ path: `${prefix}${e.path}`, message: e.message }));
}
