import type { MappedRole } from '../../domain/account.ts';
import { type Clock, isoTime } from '../../domain/clock.ts';
import { conflict, notFound, validationFailed } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { GROUP_MEMBERS_MAX, type ProvisionedGroup } from '../../domain/provisioned-group.ts';
import type { GroupFilter, GroupStore, ProjectStore, WithTransactions } from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { type VersionedKind, writeVersioned } from '../core/versioned-write.ts';
import type { AccountRoles } from './account-writes.ts';
import { type GroupRoles, regrantMembers } from './group-regrant.ts';
import { refuseNonAdmin } from './provisioning-service.ts';

/** What an identity provider sets of a group (SCIM displayName, externalId, members). */
export interface ProvisionedGroupInput {
  readonly displayName: string;
  readonly externalId: string | null;
  /** Account ids. */
  readonly members: readonly string[];
}

/** Groups as the one versioned write stores and audits them: their events count members, not list them. */
const GROUPS: VersionedKind<ProvisionedGroup, GroupRoles> = {
  type: 'group',
  key: (group) => group.displayName,
  logOf: () => null,
  shown: ({ members, ...group }) => ({ ...group, memberCount: members.length }),
  insert: (tx, group) => tx.insertGroup(group),
  update: (tx, group, expectedVersion) => tx.updateGroup(group, expectedVersion),
  remove: (tx, group) => tx.deleteGroup(group.id),
};

const VIA_SCIM = { via: 'scim' } as const;

/**
 * SCIM Groups (decision 1891): the groups the identity provider pushes, whose names
 * FLAGSTAFF_OIDC_ROLES maps to roles as it maps the roles claim. A write re-reads the role of
 * every account whose groups it changes, in its own transaction, so removing someone from a
 * group holds at once; the last active organisation admin stays one (409).
 */
export class GroupProvisioningService {
  readonly #store: WithTransactions<AccountRoles & GroupStore & ProjectStore>;
  readonly #clock: Clock;
  readonly #mappings: readonly MappedRole[];

  constructor(
    store: WithTransactions<AccountRoles & GroupStore & ProjectStore>,
    clock: Clock,
    mappings: readonly MappedRole[],
  ) {
    this.#store = store;
    this.#clock = clock;
    this.#mappings = mappings;
  }

  list(actor: Actor, filter: GroupFilter, offset: number, count: number) {
    refuseNonAdmin(actor);
    return this.#store.groupsFrom(filter, offset, count);
  }

  async get(actor: Actor, id: string): Promise<ProvisionedGroup> {
    refuseNonAdmin(actor);
    return this.#found(id, this.#store);
  }

  async create(actor: Actor, input: ProvisionedGroupInput): Promise<ProvisionedGroup> {
    refuseNonAdmin(actor);
    const at = isoTime(this.#clock);
    return this.#store.transaction(async (tx) => {
      const group: ProvisionedGroup = {
        id: newId('grp'),
        ...(await checked(tx, input)),
        version: 1,
        createdAt: at,
        updatedAt: at,
      };
      return writeVersioned(tx, actor, this.#clock, GROUPS, {
        create: async () => ({
          next: group,
          action: 'group.created',
          taken: takenName(group.displayName),
          details: { ...VIA_SCIM, added: group.members, removed: [] },
        }),
        also: () =>
          regrantMembers(tx, actor, this.#clock, this.#mappings, group.members, [group.displayName]),
      });
    });
  }

  /** Replaces the group (PUT), or what a PATCH made of it: `change` gets the group as stored. */
  async update(
    actor: Actor,
    id: string,
    change: (current: ProvisionedGroup) => ProvisionedGroupInput,
  ): Promise<ProvisionedGroup> {
    refuseNonAdmin(actor);
    return this.#store.transaction(async (tx) => {
      let affected: readonly string[] = [];
      let names: readonly string[] = [];
      return writeVersioned(tx, actor, this.#clock, GROUPS, {
        load: () => this.#found(id, tx),
        change: async (current) => {
          const input = await checked(tx, change(current));
          if (input.displayName !== current.displayName && (await taken(tx, input.displayName, id))) {
            throw conflict(takenName(input.displayName));
          }
          const added = input.members.filter((m) => !current.members.includes(m));
          const removed = current.members.filter((m) => !input.members.includes(m));
          // A new name is another claim value: every member's role may change with it.
          affected =
            input.displayName === current.displayName
              ? [...added, ...removed]
              : [...new Set([...current.members, ...input.members])];
          names = [current.displayName, input.displayName];
          const next = {
            ...current,
            ...input,
            version: current.version + 1,
            updatedAt: isoTime(this.#clock),
          };
          return { next, action: 'group.updated', details: { ...VIA_SCIM, added, removed } };
        },
        raced: () => conflict('The group changed meanwhile; read it again and retry.'),
        also: () => regrantMembers(tx, actor, this.#clock, this.#mappings, affected, names),
      });
    });
  }

  /** Deletes the group; its members keep only what their other groups give them. */
  async remove(actor: Actor, id: string): Promise<void> {
    refuseNonAdmin(actor);
    await this.#store.transaction((tx) =>
      writeVersioned(tx, actor, this.#clock, GROUPS, {
        load: () => this.#found(id, tx),
        change: async () => ({ next: null, action: 'group.deleted', details: VIA_SCIM }),
        also: (group) =>
          regrantMembers(tx, actor, this.#clock, this.#mappings, group.members, [group.displayName]),
      }),
    );
  }

  async #found(id: string, store: GroupStore): Promise<ProvisionedGroup> {
    const group = await store.findGroupById(id);
    if (group === undefined) throw notFound(`No group with id "${id}".`);
    return group;
  }
}

/** The input with its members de-duplicated and sorted, each an account; at most GROUP_MEMBERS_MAX. */
async function checked(tx: AccountRoles, input: ProvisionedGroupInput): Promise<ProvisionedGroupInput> {
  const members = [...new Set(input.members)].sort();
  if (members.length > GROUP_MEMBERS_MAX) {
    throw validationFailed(`A group holds at most ${GROUP_MEMBERS_MAX} members.`, [
      { path: '/members', message: `at most ${GROUP_MEMBERS_MAX}` },
    ]);
  }
  for (const member of members) {
    if ((await tx.findAccountById(member)) === undefined) {
      throw validationFailed(`No user with id "${member}" to make a member.`, [
        { path: '/members', message: `no user with id "${member}"` },
      ]);
    }
  }
  return { ...input, members };
}

async function taken(tx: GroupStore, displayName: string, except: string): Promise<boolean> {
  const found = await tx.groupsFrom({ displayName }, 0, 1);
  return found.items.some((group) => group.id !== except);
}

const takenName = (displayName: string) => `There is already a group named "${displayName}".`;
