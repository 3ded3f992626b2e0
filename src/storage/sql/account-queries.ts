import type { AccountStore } from '../store.ts';
import {
  accountFromRow,
  accountToRow,
  invitationFromRow,
  invitationToRow,
  sessionFromRow,
  sessionToRow,
} from './rows.ts';
import {
  deleteById,
  findOne,
  mapUnique,
  paged,
  type SqlContext,
  touchedOne,
  updateVersioned,
} from './sql-context.ts';

const byId = { column: 'id', direction: 'asc', of: (r: { id: string }) => r.id } as const;

/** Dashboard accounts, invitations and sessions. */
export function accountQueries({ db, atomically }: SqlContext): AccountStore {
  return {
    listAccounts(filter, page) {
      let query = db.selectFrom('accounts').selectAll();
      if (filter.projectId !== undefined)
        query = query.where('project_id', filter.projectId === null ? 'is' : '=', filter.projectId);
      return paged(query, byId, page, (rows) => rows.map(accountFromRow));
    },

    findAccountById: (id) =>
      findOne(db.selectFrom('accounts').selectAll().where('id', '=', id), accountFromRow),

    findAccountByEmail: (email) =>
      findOne(db.selectFrom('accounts').selectAll().where('email', '=', email), accountFromRow),

    async insertAccount(account) {
      await mapUnique(db.insertInto('accounts').values(accountToRow(account)).execute());
    },

    updateAccount(account, expectedVersion) {
      const { created_at: _, ...columns } = accountToRow(account);
      return updateVersioned(db, 'accounts', account.id, columns, expectedVersion);
    },

    deleteAccount: (id) =>
      atomically(async ({ db }) => {
        await db.deleteFrom('sessions').where('account_id', '=', id).execute();
        return deleteById(db, 'accounts', id);
      }),

    listInvitations(filter, page) {
      let query = db.selectFrom('invitations').selectAll();
      if (filter.projectId !== undefined)
        query = query.where('project_id', filter.projectId === null ? 'is' : '=', filter.projectId);
      if (filter.pendingAt !== undefined)
        query = query.where('accepted_at', 'is', null).where('expires_at', '>', filter.pendingAt);
      return paged(query, byId, page, (rows) => rows.map(invitationFromRow));
    },

    findInvitationById: (id) =>
      findOne(db.selectFrom('invitations').selectAll().where('id', '=', id), invitationFromRow),

    findInvitationByHash: (tokenHash) =>
      findOne(
        db.selectFrom('invitations').selectAll().where('token_hash', '=', tokenHash),
        invitationFromRow,
      ),

    async insertInvitation(invitation) {
      await mapUnique(db.insertInto('invitations').values(invitationToRow(invitation)).execute());
    },

    async acceptInvitation(id, at) {
      const result = await db
        .updateTable('invitations')
        .set({ accepted_at: at })
        .where('id', '=', id)
        .where('accepted_at', 'is', null)
        .executeTakeFirst();
      return touchedOne(result);
    },

    deleteInvitation: (id) => deleteById(db, 'invitations', id),

    async insertSession(session) {
      await db.insertInto('sessions').values(sessionToRow(session)).execute();
    },

    findSessionByHash: (tokenHash) =>
      findOne(db.selectFrom('sessions').selectAll().where('token_hash', '=', tokenHash), sessionFromRow),

    deleteSession: (id) => deleteById(db, 'sessions', id),

    async deleteExpiredSessions(at) {
      await db.deleteFrom('sessions').where('expires_at', '<=', at).execute();
    },
  };
}
