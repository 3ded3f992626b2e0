import { parseArgs } from 'node:util';
import { type ApiKey, KEY_ROLES } from '../domain/api-key.ts';
import { type Clock, systemClock } from '../domain/clock.ts';
import { DomainError } from '../domain/errors.ts';
import { composeNode } from '../main.ts';
import type { ApiKeyService } from '../services/access/api-key-service.ts';
import type { Actor } from '../services/core/actor.ts';
import type { Store } from '../storage/store.ts';
import { type CliOutput, operator, processOutput } from './operator.ts';
import { ENVIRONMENT_OPTION, PROJECT_OPTION } from './server-options.ts';

export const KEYS_USAGE = `Usage:
  flagstaff keys create [--project P] --role R [--environment E …] [--name N] [--expires-at T]
  flagstaff keys list [--project P]
  flagstaff keys revoke ID

  create   makes a key and prints its secret, once. Without --project the key is
           organisation-wide (what an operator who lost the admin key needs: --role admin).
           --role is evaluator, viewer, editor, admin or edge; --environment may repeat (default: all);
           --expires-at is an RFC 3339 time.
  list     every key (or one project's), never their secrets.
  revoke   refuses the key from the next request on, on every node.

They work on the database of FLAGSTAFF_DATABASE_URL, with an operator's full rights.`;

/** Where `flagstaff keys` writes (the CLI's output). */
export type KeysOutput = CliOutput;

/** The operator at the console: an organisation-wide admin, recorded as such in the audit log. */
const keysOperator = () => operator((login) => `Operator (flagstaff CLI, ${login})`);

/** `flagstaff keys …` on an open store; returns the exit code (2: usage, 1: refused). */
export async function runKeysCommand(
  argv: readonly string[],
  store: Store,
  output: KeysOutput = processOutput,
  clock: Clock = systemClock,
): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    output.err(`${(error as Error).message}\n\n${KEYS_USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || command === undefined) {
    output.out(`${KEYS_USAGE}\n`);
    return command === undefined && !values.help ? 2 : 0;
  }
  const apiKeys = composeNode(store, { clock }).services.apiKeys;
  const actor = keysOperator();
  try {
    switch (command) {
      case 'create':
        return await create(apiKeys, actor, values, output);
      case 'list':
        return await list(store, apiKeys, actor, values.project, output, clock);
      case 'revoke':
        return await revoke(store, apiKeys, actor, rest, output);
      default:
        output.err(`Unknown keys command "${command}".\n\n${KEYS_USAGE}\n`);
        return 2;
    }
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const details = (error.errors ?? []).map((e) => `\n  ${e.path}: ${e.message}`).join('');
    output.err(`flagstaff keys: ${error.message}${details}\n`);
    return 1;
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      ...PROJECT_OPTION,
      role: { type: 'string', short: 'r' },
      environment: { ...ENVIRONMENT_OPTION, multiple: true },
      name: { type: 'string', short: 'n' },
      'expires-at': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

type Values = ReturnType<typeof parse>['values'];

async function create(apiKeys: ApiKeyService, actor: Actor, values: Values, output: KeysOutput) {
  const role = KEY_ROLES.find((r) => r === values.role);
  if (role === undefined) {
    output.err(`--role must be one of ${KEY_ROLES.join(', ')}.\n`);
    return 2;
  }
  const expiresAt = values['expires-at'];
  if (expiresAt !== undefined && Number.isNaN(Date.parse(expiresAt))) {
    output.err(`--expires-at must be an RFC 3339 time, e.g. 2030-01-31T00:00:00Z; got "${expiresAt}".\n`);
    return 2;
  }
  const key = await apiKeys.create(actor, values.project ?? null, {
    name: values.name ?? `Created with the CLI by ${actor.principal.name}`,
    role,
    environments: values.environment ?? null,
    expiresAt: expiresAt === undefined ? null : new Date(expiresAt).toISOString(),
  });
  output.out(
    `Created ${key.id} "${key.name}": ${describe(key)}.\n` +
      `The secret is shown this once; store it now:\n\n    ${key.secret}\n\n`,
  );
  return 0;
}

async function list(
  store: Store,
  apiKeys: ApiKeyService,
  actor: Actor,
  project: string | undefined,
  output: KeysOutput,
  clock: Clock,
) {
  const scopes: (string | null)[] = project === undefined ? [null, ...(await projectIds(store))] : [project];
  const keys: ApiKey[] = [];
  for (const scope of scopes) {
    let cursor: string | undefined;
    do {
      const page = await apiKeys.list(actor, scope, { limit: 1000, cursor });
      keys.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
  }
  if (keys.length === 0) {
    output.out('No API keys.\n');
    return 0;
  }
  const rows = [
    ['ID', 'PREFIX', 'NAME', 'ROLE', 'PROJECT', 'ENVIRONMENTS', 'LAST USED', 'STATUS'],
    ...keys.map((k) => [
      k.id,
      `${k.prefix}…`,
      k.name,
      k.role,
      k.projectId ?? '(organisation)',
      k.environments?.join(',') ?? '(all)',
      k.lastUsedAt ?? 'never',
      status(k, clock),
    ]),
  ];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  for (const row of rows) {
    output.out(
      `${row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd()}\n`,
    );
  }
  return 0;
}

async function revoke(store: Store, apiKeys: ApiKeyService, actor: Actor, ids: string[], output: KeysOutput) {
  if (ids.length !== 1) {
    output.err(`keys revoke takes one key id.\n\n${KEYS_USAGE}\n`);
    return 2;
  }
  const id = ids[0] as string;
  const before = await store.findApiKeyById(id);
  await apiKeys.revoke(actor, id);
  output.out(
    before?.revokedAt
      ? `${id} was already revoked (${before.revokedAt}).\n`
      : `Revoked ${id} (${before?.prefix}…): requests with it are refused from now on.\n`,
  );
  return 0;
}

async function projectIds(store: Store): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listProjects({ limit: 1000, cursor });
    ids.push(...page.items.map((p) => p.id));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return ids;
}

function describe(key: ApiKey): string {
  const where = key.projectId === null ? 'organisation-wide' : `project ${key.projectId}`;
  const environments =
    key.environments === null ? 'all environments' : `environments ${key.environments.join(', ')}`;
  const expires = key.expiresAt === null ? '' : `, expires ${key.expiresAt}`;
  return `${key.role}, ${where}, ${environments}${expires}`;
}

function status(key: ApiKey, clock: Clock): string {
  if (key.revokedAt !== null) return `revoked ${key.revokedAt}`;
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= clock()) return `expired ${key.expiresAt}`;
  return key.expiresAt === null ? 'active' : `active until ${key.expiresAt}`;
}
