import { EXTERNAL_ID_MAX } from '../../domain/account.ts';
import { isPlainObject } from '../../domain/json.ts';
import { NAME_MAX } from '../../domain/keys.ts';
import type { ProvisionedGroup } from '../../domain/provisioned-group.ts';
import type { ProvisionedGroupInput } from '../../services/accounts/group-provisioning-service.ts';
import { invalidValue, SCIM, ScimError } from './scim-error.ts';
import { equalityFilter } from './scim-filter.ts';
import { textOf } from './scim-user.ts';

/** The longest member id taken: account ids are far shorter, as the routes' ids are. */
const MEMBER_ID_MAX = 100;

/** A group as a SCIM Group resource (RFC 7643 §4.2); `members: false` leaves them out (excludedAttributes). */
export function scimGroup(group: ProvisionedGroup, baseUrl: string, members = true) {
  return {
    schemas: [SCIM.group],
    id: group.id,
    ...(group.externalId === null ? {} : { externalId: group.externalId }),
    displayName: group.displayName,
    ...(members
      ? { members: group.members.map((id) => ({ value: id, $ref: `${baseUrl}/Users/${id}`, type: 'User' })) }
      : {}),
    meta: {
      resourceType: 'Group',
      created: group.createdAt,
      lastModified: group.updatedAt,
      location: `${baseUrl}/Groups/${group.id}`,
      version: `W/"${group.version}"`,
    },
  };
}

/** How a provisioning client looks a group up (RFC 7644 §3.4.2.2). */
export const groupFilter = (filter: string) => equalityFilter(filter, ['displayName', 'externalId'] as const);

const displayNameOf = (value: unknown) => textOf(value, 'displayName', NAME_MAX);
const externalIdOf = (value: unknown) =>
  value === undefined || value === null ? null : (textOf(value, 'externalId', EXTERNAL_ID_MAX) ?? null);

/** The user ids of a SCIM members list (`[{ value }]`). */
function memberIds(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidValue('members must be a list of { value: <user id> }.');
  return value.map((member) => {
    const id = isPlainObject(member) ? textOf(member.value, 'members.value', MEMBER_ID_MAX) : undefined;
    if (id === undefined) throw invalidValue('Each member needs a value: the id of a user.');
    return id;
  });
}

/** A whole Group, as POST and PUT send it: displayName required. */
export function groupOf(body: unknown): ProvisionedGroupInput {
  if (!isPlainObject(body))
    throw new ScimError(400, 'The body must be a SCIM Group object.', 'invalidSyntax');
  const displayName = displayNameOf(body.displayName);
  if (displayName === undefined) throw invalidValue('displayName is required.');
  return { displayName, externalId: externalIdOf(body.externalId), members: memberIds(body.members) };
}

/** `members[value eq "…"]`: the one member a remove names, or undefined for another path. */
function memberOfPath(path: string): string | undefined {
  const inner = /^members\s*\[(.*)\]$/is.exec(path)?.[1];
  return inner === undefined ? undefined : equalityFilter(inner, ['value'] as const).value;
}

type Edit = { -readonly [K in keyof ProvisionedGroupInput]: ProvisionedGroupInput[K] };

/** One add, replace or remove of a group's attribute, applied to `group`. */
function applyOperation(group: Edit, op: string, path: string | undefined, value: unknown): void {
  const attribute = path?.toLowerCase();
  const named = path === undefined ? undefined : memberOfPath(path);
  if (named !== undefined) {
    if (op !== 'remove')
      throw new ScimError(400, `${op} cannot name one member; add it to members.`, 'invalidPath');
    group.members = group.members.filter((id) => id !== named);
  } else if (attribute === 'members') {
    const ids = memberIds(value);
    if (op === 'add') group.members = [...group.members, ...ids];
    else if (op === 'replace') group.members = ids;
    else group.members = value === undefined ? [] : group.members.filter((id) => !ids.includes(id));
  } else if (attribute === 'displayname') {
    if (op === 'remove') throw new ScimError(400, 'displayName is required.', 'mutability');
    group.displayName = displayNameOf(value) ?? group.displayName;
  } else if (attribute === 'externalid') {
    group.externalId = op === 'remove' ? null : externalIdOf(value);
  } else if (attribute === undefined) {
    if (op === 'remove') throw new ScimError(400, 'remove needs a path.', 'noTarget');
    if (!isPlainObject(value)) throw invalidValue(`${op} without a path needs an object value.`);
    for (const [name, inner] of Object.entries(value)) {
      // Okta sends the id along; it is not an attribute a client sets.
      if (name !== 'id') applyOperation(group, op, name, inner);
    }
  }
  // Other attributes Flagstaff does not keep are ignored, as for users.
}

/**
 * What a PATCH makes of a group (RFC 7644 §3.5.2), in the forms Okta and Entra ID send: add,
 * replace or remove of `members` (a list; remove without one empties it), remove of
 * `members[value eq "…"]`, replace of `displayName` and `externalId`, with a path or as an object.
 */
export function groupPatchOf(body: unknown): (current: ProvisionedGroup) => ProvisionedGroupInput {
  const operations = isPlainObject(body) ? body.Operations : undefined;
  if (!Array.isArray(operations) || operations.length === 0) {
    throw new ScimError(400, 'A PATCH needs an Operations list.', 'invalidSyntax');
  }
  const parsed = operations.map((operation) => {
    if (!isPlainObject(operation) || typeof operation.op !== 'string') {
      throw new ScimError(400, 'Each operation needs an op.', 'invalidSyntax');
    }
    const op = operation.op.toLowerCase();
    if (op !== 'add' && op !== 'replace' && op !== 'remove') {
      throw new ScimError(400, `Unknown op "${operation.op}": use add, replace or remove.`, 'invalidSyntax');
    }
    const path = typeof operation.path === 'string' ? operation.path.trim() : undefined;
    // Checked now, so a bad PATCH is refused before anything is read.
    applyOperation({ displayName: '', externalId: null, members: [] }, op, path, operation.value);
    return { op, path, value: operation.value };
  });
  return (current) => {
    const group: Edit = {
      displayName: current.displayName,
      externalId: current.externalId,
      members: [...current.members],
    };
    for (const { op, path, value } of parsed) applyOperation(group, op, path, value);
    return group;
  };
}
