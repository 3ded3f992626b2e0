import { type TSchema, Type } from 'typebox';
import { CreateFlagSchema, FlagEnvironmentPatchSchema } from './flag-input.ts';
import { Closed, Description, Key, Name } from './kit.ts';
import { CreateSegmentSchema } from './segment-input.ts';

// The files of flags as code (docs/flags-as-code.md): the API's own request shapes, without the
// fields the server owns, so a file reads like the body that would create the resource.

/** Where the server publishes the schema, unauthenticated, for editors and CI. */
export const FILES_SCHEMA_PATH = '/v1/schemas/flagstaff-files.json';

/** Editors follow `$schema` (JSON) or a yaml-language-server comment (YAML); either may be in a file. */
const SchemaLink = { $schema: Type.Optional(Type.String()) };

export const EnvironmentFileSchema = Closed({
  key: Key,
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  protected: Type.Optional(
    Type.Boolean({ description: 'The dashboard asks before changes here. Default: true for `production`.' }),
  ),
  requiredApprovals: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 5,
      description: 'Approvals a non-admin change to flags here needs. Changing it needs an admin key.',
    }),
  ),
});

export const ProjectFileSchema = Closed(
  {
    ...SchemaLink,
    key: Key,
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    environments: Type.Array(EnvironmentFileSchema, { minItems: 1, maxItems: 50 }),
  },
  { title: 'project.yaml', description: "A project's fields and its environments." },
);

export const SegmentFileSchema = Closed(
  { ...SchemaLink, ...CreateSegmentSchema.properties },
  { title: 'segments/<key>.yaml', description: 'A segment, as POST /v1/projects/{p}/segments takes it.' },
);

export const FlagFileSchema = Closed(
  {
    ...SchemaLink,
    ...CreateFlagSchema.properties,
    archived: Type.Optional(Type.Boolean()),
    environments: Type.Optional(
      Type.Record(Key, FlagEnvironmentPatchSchema, {
        description:
          'The flag in each environment it manages; an environment left out is left as it is on the server.',
      }),
    ),
  },
  {
    title: 'flags/<key>.yaml',
    description: 'A flag, as POST /v1/projects/{p}/flags takes it, with its state per environment.',
  },
);

/** TypeBox keeps its own markers on schemas (symbols); a plain JSON copy is what is published. */
const plain = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema));

/** The one JSON Schema of every file of a project folder: a file is one of the three kinds. */
export function projectFilesSchema(): Record<string, unknown> {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: `https://flagstaff.invalid${FILES_SCHEMA_PATH}`,
    title: 'Flagstaff flags-as-code files',
    description:
      'project.yaml, segments/<key>.yaml and flags/<key>.yaml (or .json) of a project folder; see docs/flags-as-code.md.',
    anyOf: [
      { $ref: '#/definitions/project' },
      { $ref: '#/definitions/segment' },
      { $ref: '#/definitions/flag' },
    ],
    definitions: {
      project: plain(ProjectFileSchema),
      segment: plain(SegmentFileSchema),
      flag: plain(FlagFileSchema),
    },
  };
}
