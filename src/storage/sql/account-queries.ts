import type {
  AccountRecordStore,
  AccountStore,
  InvitationStore,
  PasswordResetStore,
  SessionStore,
} from '../store.ts';
import { emailOrNameContains } from './columns-contain.ts';
import {
  accountFromRow,
  accountToRow,
  invitationFromRow,
  invitationToRow,
  passwordResetFromRow,
  passwordResetToRow,
  sessionFromRow,
  sessionToRow,
} from './rows.ts';
import { findOne, locked, mapUnique, paged, type SqlContext, useOnce } from './sql-context.ts';
import { deleteById, updateVersioned } from './versioned-rows.ts';

const byId = { column: 'id', direction: 'asc', of: (r: { id: string }) => r.id } as const;

/** Dashboard accounts, invitations and sessions. */
export function accountQueries(context: SqlContext): AccountStore {
  return {
    ...accountRecordQueries(context),
    ...invitationQueries(context),
    ...sessionQueries(context),
    ...passwordResetQueries(context),
  };
}

/** An account found by what names it: its id, email, identity-provider subject or SCIM external id. */
function accountFinders(
  db: SqlContext['db'],
): Pick<
  AccountRecordStore,
  'findAccountById' | 'findAccountByEmail' | 'findAccountBySubject' | 'findAccountsByExternalId'
> {
  return {
    findAccountById: (id) =>
      findOne(db.selectFrom('accounts').selectAll().where('id', '=', id), accountFromRow),

    findAccountByEmail: (email) =>
      findOne(db.selectFrom('accounts').selectAll().where('email', '=', email), accountFromRow),

    findAccountBySubject: (issuer, subject) =>
      findOne(
        db
          .selectFrom('accounts')
          .selectAll()
          .where('oidc_issuer', '=', issuer)
          .where('oidc_subject', '=', subject),
        accountFromRow,
      ),

    findAccountsByExternalId: async (externalId) =>
      (
        await db
          .selectFrom('accounts')
          .selectAll()
          .where('external_id', '=', externalId)
          .orderBy('id')
          .execute()
      ).map(accountFromRow),
  };
}

function accountRecordQueries(context: SqlContext): AccountRecordStore {
  const { db, atomically } = context;
  return {
    listAccounts(filter, page) {
      let query = db.selectFrom('accounts').selectAll();
      if (filter.projectId !== undefined)
        query = query.where('project_id', filter.projectId === null ? 'is' : '=', filter.projectId);
      if (filter.q) query = query.where(emailOrNameContains(filter.q));
      return paged(query, byId, page, (rows) => rows.map(accountFromRow));
    },

    ...accountFinders(db),

    async accountsFrom(offset, limit) {
      const [counted, rows] = await Promise.all([
        db
          .selectFrom('accounts')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow(),
        db.selectFrom('accounts').selectAll().orderBy('id').offset(offset).limit(limit).execute(),
      ]);
      return { total: Number(counted.n), items: rows.map(accountFromRow) };
    },

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
        await db.deleteFrom('password_resets').where('account_id', '=', id).execute();
        return deleteById(db, 'accounts', id);
      }),

    async organisationAdminIds() {
      const query = db
        .selectFrom('accounts')
        .select('id')
        .where('project_id', 'is', null)
        .where('role', '=', 'admin')
        .where('active', '=', 1);
      const rows = await locked(context, query, 'update').execute();
      return rows.map((r) => r.id);
    },
  };
}

function invitationQueries({ db }: SqlContext): InvitationStore {
  return {
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

    acceptInvitation: (id, at) => useOnce(db, { table: 'invitations', usedColumn: 'accepted_at' }, id, at),

    deleteInvitation: (id) => deleteById(db, 'invitations', id),
  };
}

function sessionQueries({ db }: SqlContext): SessionStore {
  return {
    async insertSession(session) {
      await db.insertInto('sessions').values(sessionToRow(session)).execute();
    },

    findSessionByHash: (tokenHash) =>
      findOne(db.selectFrom('sessions').selectAll().where('token_hash', '=', tokenHash), sessionFromRow),

    deleteSession: (id) => deleteById(db, 'sessions', id),

    async deleteSessionsOfAccount(accountId, except) {
      let query = db.deleteFrom('sessions').where('account_id', '=', accountId);
      if (except !== undefined) query = query.where('id', '!=', except);
      const result = await query.executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async deleteExpiredSessions(at) {
      await db.deleteFrom('sessions').where('expires_at', '<=', at).execute();
    },

    async deletePasswordSessions() {
      const result = await db.deleteFrom('sessions').where('by_password', '=', 1).executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async insertOidcSignIn(pending) {
      await db.deleteFrom('oidc_sign_ins').where('expires_at', '<=', new Date().toISOString()).execute();
      await db
        .insertInto('oidc_sign_ins')
        .values({
          state_hash: pending.stateHash,
          browser_hash: pending.browserHash,
          nonce: pending.nonce,
          code_verifier: pending.codeVerifier,
          return_to: pending.returnTo,
          expires_at: pending.expiresAt,
        })
        .execute();
    },

    async takeOidcSignIn(stateHash) {
      const row = await db
        .selectFrom('oidc_sign_ins')
        .selectAll()
        .where('state_hash', '=', stateHash)
        .executeTakeFirst();
      if (row === undefined) return undefined;
      const deleted = await db
        .deleteFrom('oidc_sign_ins')
        .where('state_hash', '=', stateHash)
        .executeTakeFirst();
      // Two callbacks with one state: only the one whose delete removed the row may go on.
      if (Number(deleted.numDeletedRows) !== 1) return undefined;
      return {
        stateHash: row.state_hash,
        browserHash: row.browser_hash,
        nonce: row.nonce,
        codeVerifier: row.code_verifier,
        returnTo: row.return_to,
        expiresAt: row.expires_at,
      };
    },
  };
}

function passwordResetQueries({ db }: SqlContext): PasswordResetStore {
  return {
    async insertPasswordReset(reset) {
      await mapUnique(db.insertInto('password_resets').values(passwordResetToRow(reset)).execute());
    },

    findPasswordResetByHash: (tokenHash) =>
      findOne(
        db.selectFrom('password_resets').selectAll().where('token_hash', '=', tokenHash),
        passwordResetFromRow,
      ),

    usePasswordReset: (id, at) => useOnce(db, { table: 'password_resets', usedColumn: 'used_at' }, id, at),

    async deletePendingPasswordResets(accountId) {
      await db
        .deleteFrom('password_resets')
        .where('account_id', '=', accountId)
        .where('used_at', 'is', null)
        .execute();
    },
  };
}
