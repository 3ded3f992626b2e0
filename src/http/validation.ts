import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { FieldError } from '../domain/errors.ts';
import { KEY_PATTERN, KEY_RULE } from '../domain/keys.ts';

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

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? strict : coercing;
  return ajv.compile(schema) as ReturnType<FastifySchemaCompiler<object>>;
};

/**
 * The message of a length or pattern error in words a person can act on beside the field (the
 * dashboard shows them there), in the API's style of words that follow the field's name; Ajv's
 * own ("must NOT have fewer than 1 characters") for the rest.
 */
function inWords(e: ErrorObject): string {
  const params = e.params as { limit?: number; pattern?: string };
  if (e.keyword === 'minLength')
    return params.limit === 1 ? 'is required' : `must be at least ${params.limit} characters`;
  if (e.keyword === 'maxLength') return `must be at most ${params.limit} characters`;
  if (e.keyword === 'pattern' && params.pattern === KEY_PATTERN) return KEY_RULE;
  return e.message ?? 'is invalid';
}

/** Turns Ajv errors into `{ path, message }` with JSON-pointer paths a person can follow. */
export function fieldErrors(errors: readonly ErrorObject[], part: string): FieldError[] {
  const prefix = part === 'body' ? '' : `${part}:`;
  return errors.map((e) => {
    if (e.keyword === 'additionalProperties') {
      const field = (e.params as { additionalProperty: string }).additionalProperty;
      return { path: `${prefix}${e.instancePath}/${field}`, message: `unknown field "${field}"` };
    }
    if (e.keyword === 'required') {
      const field = (e.params as { missingProperty: string }).missingProperty;
      return { path: `${prefix}${e.instancePath}/${field}`, message: 'is required' };
    }
    if (e.keyword === 'enum') {
      const allowed = (e.params as { allowedValues: unknown[] }).allowedValues;
      return {
        path: `${prefix}${e.instancePath}`,
        message: `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`,
      };
    }
    return { path: `${prefix}${e.instancePath || '/'}`, message: inWords(e) };
  });
}
