import { EMAIL_MAX, EXTERNAL_ID_MAX } from '../../domain/account.ts';
import { NAME_MAX } from '../../domain/keys.ts';
import { SCIM } from './scim-error.ts';

// The discovery documents of RFC 7644 §4 (/Schemas, /ResourceTypes), for the attributes this
// server keeps: a client reads what it may send, and the limits are in each description.

interface Attribute {
  readonly name: string;
  readonly type: 'string' | 'boolean' | 'complex' | 'reference';
  readonly description: string;
  readonly required?: boolean;
  readonly multiValued?: boolean;
  readonly mutability?: 'readOnly' | 'readWrite' | 'immutable';
  readonly uniqueness?: 'none' | 'server';
  readonly subAttributes?: readonly Attribute[];
  readonly referenceTypes?: readonly string[];
}

/** An attribute with RFC 7643 §7's defaults spelled out, as clients expect every characteristic. */
const attribute = ({ subAttributes, referenceTypes, ...a }: Attribute): Record<string, unknown> => ({
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...a,
  ...(subAttributes === undefined ? {} : { subAttributes: subAttributes.map(attribute) }),
  ...(referenceTypes === undefined ? {} : { referenceTypes }),
});

const externalId: Attribute = {
  name: 'externalId',
  type: 'string',
  description: `The identity provider's id (at most ${EXTERNAL_ID_MAX} characters). A user's is its ID tokens' sub: the first sign-in binds by it.`,
};

const USER_ATTRIBUTES: readonly Attribute[] = [
  {
    name: 'userName',
    type: 'string',
    required: true,
    uniqueness: 'server',
    description: `The email the person signs in with, lower-cased (at most ${EMAIL_MAX} characters).`,
  },
  {
    name: 'displayName',
    type: 'string',
    description: `The person's name (at most ${NAME_MAX} characters).`,
  },
  {
    name: 'name',
    type: 'complex',
    description: 'The name, when displayName is not sent.',
    subAttributes: ['formatted', 'givenName', 'familyName'].map((name) => ({
      name,
      type: 'string',
      description: `At most ${NAME_MAX} characters.`,
    })),
  },
  {
    name: 'emails',
    type: 'complex',
    multiValued: true,
    description: 'The primary (else first) value is the userName when userName is not sent.',
    subAttributes: [
      { name: 'value', type: 'string', description: `At most ${EMAIL_MAX} characters.` },
      { name: 'type', type: 'string', description: 'Ignored.' },
      { name: 'primary', type: 'boolean', description: 'The email that is the userName.' },
    ],
  },
  {
    name: 'active',
    type: 'boolean',
    description: 'false deactivates: every session ends, every sign-in is refused.',
  },
  externalId,
];

const GROUP_ATTRIBUTES: readonly Attribute[] = [
  {
    name: 'displayName',
    type: 'string',
    required: true,
    uniqueness: 'server',
    description: `The group's name (at most ${NAME_MAX} characters): FLAGSTAFF_OIDC_ROLES maps it to a role, as it maps the roles claim.`,
  },
  {
    name: 'members',
    type: 'complex',
    multiValued: true,
    description: 'The users in the group; every change re-reads their roles at once.',
    subAttributes: [
      { name: 'value', type: 'string', mutability: 'immutable', description: 'The id of a user.' },
      {
        name: '$ref',
        type: 'reference',
        mutability: 'readOnly',
        referenceTypes: ['User'],
        description: "The user's URI.",
      },
      { name: 'type', type: 'string', mutability: 'readOnly', description: 'User.' },
    ],
  },
  externalId,
];

/** The /Schemas resources (RFC 7643 §7), each with its location under `baseUrl`. */
export function scimSchemas(baseUrl: string) {
  const schema = (id: string, name: string, description: string, attributes: readonly Attribute[]) => ({
    schemas: [SCIM.schema],
    id,
    name,
    description,
    attributes: attributes.map(attribute),
    meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${id}` },
  });
  return [
    schema(SCIM.user, 'User', 'A Flagstaff account', USER_ATTRIBUTES),
    schema(SCIM.group, 'Group', 'A group whose name maps to a role', GROUP_ATTRIBUTES),
  ];
}

/** The /ResourceTypes resources (RFC 7643 §6). */
export function scimResourceTypes(baseUrl: string) {
  const type = (name: 'User' | 'Group', schema: string) => ({
    schemas: [SCIM.resourceType],
    id: name,
    name,
    endpoint: `/${name}s`,
    description: name === 'User' ? 'Flagstaff accounts' : 'Groups mapped to roles',
    schema,
    schemaExtensions: [],
    meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/${name}` },
  });
  return [type('User', SCIM.user), type('Group', SCIM.group)];
}
