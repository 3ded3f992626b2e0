import type { FastifyInstance } from 'fastify';
import { jsonTextNestsDeeperThan, MAX_JSON_DEPTH } from '../domain/json-depth.ts';
import { findNul } from '../domain/nul-character.ts';
import { nulRefusal } from './validation.ts';

/** The `code` of the error a too-deep body raises; OFREP answers it as PARSE_ERROR. */
export const JSON_TOO_DEEP = 'FLAGSTAFF_JSON_TOO_DEEP';

const tooDeep = () =>
  Object.assign(new Error(`The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`), {
    statusCode: 400,
    code: JSON_TOO_DEEP,
  });

/**
 * JSON bodies (application/json, and application/merge-patch+json for PATCH, RFC 7396) are
 * refused with a 400 when they nest deeper than MAX_JSON_DEPTH, before they are parsed, or when a
 * string in them holds NUL (decision 1900): every route, schema and service after this sees
 * bounded input it can store. Anything else is a 415.
 */
export function registerJsonBodies(app: FastifyInstance, bodyLimit: number): void {
  app.removeContentTypeParser('application/json');
  acceptJson(app, ['application/json', 'application/merge-patch+json'], bodyLimit);
}

/** Parses these JSON media types in `scope` (SCIM adds application/scim+json to its own routes), with the depth check. */
export function acceptJson(scope: FastifyInstance, types: readonly string[], bodyLimit: number): void {
  const parse = scope.getDefaultJsonParser('error', 'error');
  for (const type of types) {
    scope.addContentTypeParser(type, { parseAs: 'string', bodyLimit }, (request, body, done) => {
      const text = body as string;
      if (jsonTextNestsDeeperThan(text)) return done(tooDeep(), undefined);
      // JSON can only spell NUL as this escape (raw control characters are not JSON): most bodies skip the walk.
      if (!text.includes('\\u0000')) return parse(request, text, done);
      return parse(request, text, (error, value) => {
        const found = error === null ? findNul(value) : undefined;
        return found === undefined ? done(error, value) : done(nulRefusal(found, 'body'), undefined);
      });
    });
  }
}
