import { type TSchema, Type } from 'typebox';
import { EMAIL_PATTERN, PASSWORD_MAX } from '../../domain/account.ts';
import { Closed, Key, Version } from '../../domain/schemas/kit.ts';
import { ProblemSchema } from '../../domain/schemas/problem-schema.ts';

// The building blocks of the wire contract live in the domain (decision 1870); what is HTTP's
// alone (paths, pages, search, the problems a route may answer) is here.
export {
  Closed,
  Description,
  Id,
  Key,
  Name,
  OneOf,
  Timestamp,
  Version,
} from '../../domain/schemas/kit.ts';
export { ProblemSchema } from '../../domain/schemas/problem-schema.ts';

export const Email = Type.String({ minLength: 3, maxLength: 320, pattern: EMAIL_PATTERN });
/** The rule of length (decision 0601) is the use case's, so a short password answers its own message. */
export const Password = Type.String({ minLength: 1, maxLength: PASSWORD_MAX });
/** A one-time link's token (invitation, password reset). */
export const LinkToken = Type.String({ minLength: 1, maxLength: 200 });

export const ProjectParams = Closed({ projectId: Type.String({ description: 'Project id or key.' }) });
/** An environment named in the path by its project and key (`/projects/:projectId/environments/:envKey`). */
export const EnvironmentParams = Closed({ ...ProjectParams.properties, envKey: Key });
/** A flag named by its id in the path (`/flags/:flagId/…`). */
export const FlagIdParams = Closed({ flagId: Type.String() });
/** A flag named in the path as reading it names it: by project, and key or id (`/projects/:projectId/flags/:flagKey/…`). */
export const ProjectFlagParams = Closed({ projectId: Type.String(), flagKey: Key });
/** What routes of `ProjectFlagParams` say of it. */
export const NAMED_BY_KEY = 'The flag is named by its key or by its `flg_…` id.';

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
};

/** A list answered a page at a time (`sendListed`): its query names the page, its answer is the page's items. */
export const paged = <T extends TSchema>(item: T) => ({
  querystring: Closed(PageQuery),
  200: Type.Array(item),
});

/** A list that pages both ways and says how long it is (docs/decisions/1800-paged-lists.md). */
export const CountedPageQuery = {
  ...PageQuery,
  before: Type.Optional(
    Type.String({
      maxLength: 512,
      description: 'The page just before this cursor (from a `Link: <…>; rel="prev"`); not with `cursor`.',
    }),
  ),
};

/** A list's text search (`?q=`): the items whose `fields` contain it, ignoring case. */
export const searchQueryOver = (fields: string) =>
  Type.Optional(
    Type.String({ maxLength: 200, description: `Only those whose ${fields} contains this text (any case).` }),
  );

/** The flag and segment lists' search, over keys and names (decision 1844). */
export const SearchQuery = searchQueryOver('key or name');

/** The error responses a route can give, by status, all problem+json. */
export function problems(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, ProblemSchema]));
}

/** `POST …/restore`: the earlier version to write again (docs/product.md §10 History). */
export const RestoreSchema = Closed({ version: Version });
