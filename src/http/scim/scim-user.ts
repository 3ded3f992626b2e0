import { type Account, EMAIL_MAX, EXTERNAL_ID_MAX } from '../../domain/account.ts';
import { isPlainObject } from '../../domain/json.ts';
import { NAME_MAX } from '../../domain/keys.ts';
import type { ProvisionedPerson } from '../../services/accounts/provisioning-service.ts';
import { invalidValue as invalid, SCIM, ScimError } from './scim-error.ts';
import { equalityFilter } from './scim-filter.ts';

/** An account as a SCIM User resource (RFC 7643 §4.1). */
export function scimUser(account: Account, baseUrl: string) {
  return {
    schemas: [SCIM.user],
    id: account.id,
    ...(account.externalId === null ? {} : { externalId: account.externalId }),
    userName: account.email,
    name: { formatted: account.name },
    displayName: account.name,
    emails: [{ value: account.email, type: 'work', primary: true }],
    active: account.active,
    meta: {
      resourceType: 'User',
      created: account.createdAt,
      location: `${baseUrl}/Users/${account.id}`,
      version: `W/"${account.version}"`,
    },
  };
}

/** true/false; Entra ID sends them as the strings "True" and "False". */
function booleanOf(value: unknown, attribute: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw invalid(`${attribute} must be true or false.`);
}

/** A string attribute, trimmed; undefined when empty or not a string; refused when longer than `max`. */
export function textOf(value: unknown, attribute: string, max: number): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const text = value.trim();
  if (text.length > max) throw invalid(`${attribute} is longer than ${max} characters.`);
  return text;
}

const stringOf = (value: unknown, attribute = 'name'): string | undefined =>
  textOf(value, attribute, NAME_MAX);
const emailText = (value: unknown, attribute = 'userName') => textOf(value, attribute, EMAIL_MAX);
const externalIdOf = (value: unknown) => textOf(value, 'externalId', EXTERNAL_ID_MAX);

/** The person's name from displayName, name.formatted, or given and family names. */
function nameOf(displayName: unknown, name: unknown): string | undefined {
  const parts = isPlainObject(name) ? name : {};
  const joined = [stringOf(parts.givenName, 'name.givenName'), stringOf(parts.familyName, 'name.familyName')]
    .filter(Boolean)
    .join(' ');
  return (
    stringOf(displayName, 'displayName') ?? stringOf(parts.formatted, 'name.formatted') ?? stringOf(joined)
  );
}

/** The primary (else first) email of a SCIM `emails` list. */
function emailOf(emails: unknown): string | undefined {
  if (!Array.isArray(emails)) return undefined;
  const objects = emails.filter(isPlainObject);
  return emailText((objects.find((e) => e.primary === true) ?? objects[0])?.value, 'emails.value');
}

/** A whole User, as POST and PUT send it: userName required, active true unless it says otherwise. */
export function personOf(body: unknown): ProvisionedPerson {
  if (!isPlainObject(body)) throw new ScimError(400, 'The body must be a SCIM User object.', 'invalidSyntax');
  const email = emailText(body.userName) ?? emailOf(body.emails);
  if (email === undefined) throw invalid('userName is required: the email the person signs in with.');
  const externalId =
    body.externalId === undefined || body.externalId === null ? null : externalIdOf(body.externalId);
  if (externalId === undefined) throw invalid('externalId must be a string.');
  return {
    email,
    name: nameOf(body.displayName, body.name) ?? email,
    active: body.active === undefined ? true : booleanOf(body.active, 'active'),
    externalId,
  };
}

/**
 * What a PATCH changes (RFC 7644 §3.5.2), in the forms Okta and Entra ID send: `replace`/`add`
 * with a path (`active`, `userName`, `displayName`, `name.givenName`, `emails[type eq "work"].value`,
 * `externalId`) or without one (an object of attributes); `remove` of externalId. Attributes
 * Flagstaff does not keep (title, locale…) are ignored rather than refused, as providers send them.
 */
export function patchOf(body: unknown): Partial<ProvisionedPerson> {
  const operations = isPlainObject(body) ? body.Operations : undefined;
  if (!Array.isArray(operations) || operations.length === 0) {
    throw new ScimError(400, 'A PATCH needs an Operations list.', 'invalidSyntax');
  }
  const change: { -readonly [K in keyof ProvisionedPerson]?: ProvisionedPerson[K] } = {};
  const names: Record<string, unknown> = {};
  let displayName: unknown;
  const set = (path: string, value: unknown) => {
    const attribute = path.toLowerCase();
    if (attribute === 'active') change.active = booleanOf(value, 'active');
    else if (attribute === 'username') change.email = emailText(value) ?? change.email;
    else if (attribute === 'displayname') displayName = value;
    else if (attribute === 'name' && isPlainObject(value)) Object.assign(names, value);
    else if (attribute.startsWith('name.')) names[path.slice(5)] = value;
    else if (attribute === 'externalid')
      change.externalId = value === null ? null : (externalIdOf(value) ?? null);
    else if (attribute === 'emails') change.email = emailOf(value) ?? change.email;
    else if (/^emails(\[.*\])?\.value$/.test(attribute))
      change.email = emailText(value, 'emails.value') ?? change.email;
  };
  for (const operation of operations) {
    if (!isPlainObject(operation) || typeof operation.op !== 'string') {
      throw new ScimError(400, 'Each operation needs an op.', 'invalidSyntax');
    }
    const op = operation.op.toLowerCase();
    const path = typeof operation.path === 'string' ? operation.path.trim() : undefined;
    if (op === 'remove') {
      if (path?.toLowerCase() === 'externalid') change.externalId = null;
      else if (path === undefined) throw new ScimError(400, 'remove needs a path.', 'noTarget');
    } else if (op === 'add' || op === 'replace') {
      if (path !== undefined) set(path, operation.value);
      else if (isPlainObject(operation.value)) {
        for (const [attribute, value] of Object.entries(operation.value)) set(attribute, value);
      } else
        throw new ScimError(400, `${operation.op} without a path needs an object value.`, 'invalidValue');
    } else {
      throw new ScimError(400, `Unknown op "${operation.op}": use add, replace or remove.`, 'invalidSyntax');
    }
  }
  const name = nameOf(displayName, names);
  if (name !== undefined) change.name = name;
  return change;
}

/** How a provisioning client looks a person up (RFC 7644 §3.4.2.2): by userName or by its own id. */
export const userFilter = (filter: string) => equalityFilter(filter, ['userName', 'externalId'] as const);
