import { Type } from 'typebox';
import { Closed, Key } from './kit.ts';

/** At most so many references a report: far beyond a real repository's, and within the 1 MiB body limit. */
export const MAX_REFERENCES_PER_REPORT = 5000;
/** A context line's longest form: a minified bundle's one line is cut around the match. */
export const MAX_CONTEXT_LINE = 240;

const ContextLines = Type.Array(Type.String({ maxLength: MAX_CONTEXT_LINE }), {
  maxItems: 5,
  description: 'The lines from two before the match to two after, each cut to 240 characters.',
});

const Path = Type.String({
  minLength: 1,
  maxLength: 1024,
  description: 'The file, relative to the repository root.',
});

export const CodeReferenceSchema = Closed({
  flag: Key,
  path: Path,
  line: Type.Integer({ minimum: 1 }),
  context: ContextLines,
});

export const CodeReferenceReportSchema = Closed({
  branch: Type.String({ minLength: 1, maxLength: 256 }),
  urlTemplate: Type.Optional(
    Type.Union([Type.String({ maxLength: 1024 }), Type.Null()], {
      description:
        'How to link a reference: `{branch}`, `{path}` and `{line}` are replaced, e.g. `https://github.com/acme/shop/blob/{branch}/{path}#L{line}`.',
    }),
  ),
  references: Type.Array(CodeReferenceSchema, { maxItems: MAX_REFERENCES_PER_REPORT }),
});

export const CodeReferenceOutcomeSchema = Type.Object({
  repository: Type.String(),
  branch: Type.String(),
  changed: Type.Boolean({
    description: 'false: the branch held exactly these references already; nothing was written.',
  }),
  added: Type.Integer(),
  removed: Type.Integer(),
  total: Type.Integer(),
});

export const StoredCodeReferenceSchema = Type.Object({
  flag: Key,
  repository: Type.String(),
  branch: Type.String(),
  path: Type.String(),
  line: Type.Integer(),
  context: Type.Array(Type.String()),
  url: Type.Union([Type.String(), Type.Null()]),
  reportedAt: Type.String(),
});
