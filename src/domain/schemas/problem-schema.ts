import { Type } from 'typebox';

/** One problem of a refused request: a JSON pointer (`body:/rules/0/value`) and what is wrong. */
export const FieldErrorSchema = Type.Object({ path: Type.String(), message: Type.String() });

/** Every error answer of the HTTP API (docs/errors.md). */
export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String(),
    errors: Type.Optional(Type.Array(FieldErrorSchema)),
  },
  { description: 'RFC 9457 problem details.' },
);
