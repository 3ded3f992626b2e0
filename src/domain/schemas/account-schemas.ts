import { Type } from 'typebox';
import { Id, OneOf, Timestamp, Version } from './kit.ts';
import { RoleSchema } from './resource-schemas.ts';

// Accounts, invitations and password resets as the API answers them, and what a one-time link
// offers before it is used: the wire contract the dashboard reads (decision 1870).

/** Who made an invitation or a reset link: an API key, an account, or the first start (`system`). */
const CreatorSchema = Type.Object({
  type: OneOf(['api_key', 'user', 'release_plan', 'system']),
  id: Type.String(),
  name: Type.String(),
});

export const AccountSchema = Type.Object({
  id: Id,
  email: Type.String(),
  name: Type.String(),
  role: RoleSchema,
  projectId: Type.Union([Id, Type.Null()], { description: 'null: organisation-wide.' }),
  createdAt: Timestamp,
  lastLoginAt: Type.Union([Timestamp, Type.Null()]),
  version: Version,
  active: Type.Boolean({ description: 'false: deactivated over SCIM; it cannot sign in.' }),
  sso: Type.Union(
    [
      Type.Object({
        issuer: Type.String(),
        subject: Type.String(),
        roles: Type.Array(
          Type.Object({
            value: Type.String(),
            role: RoleSchema,
            project: Type.Union([Type.String(), Type.Null()]),
          }),
          { description: 'The claim values of the last sign-in that map to a role (FLAGSTAFF_OIDC_ROLES).' },
        ),
      }),
      Type.Null(),
    ],
    { description: 'Set when the account signs in through the identity provider; null otherwise.' },
  ),
  externalId: Type.Union([Type.String(), Type.Null()], {
    description: 'The identity provider’s id of an account it provisioned over SCIM.',
  }),
});

export const PasswordResetSchema = Type.Object({
  id: Id,
  accountId: Id,
  createdBy: CreatorSchema,
  createdAt: Timestamp,
  expiresAt: Timestamp,
  usedAt: Type.Union([Timestamp, Type.Null()]),
});

export const InvitationSchema = Type.Object({
  id: Id,
  email: Type.Union([Type.String(), Type.Null()]),
  role: RoleSchema,
  projectId: Type.Union([Id, Type.Null()]),
  invitedBy: CreatorSchema,
  createdAt: Timestamp,
  expiresAt: Timestamp,
  acceptedAt: Type.Union([Timestamp, Type.Null()]),
});

export const MeSchema = Type.Object({
  actor: Type.Object({
    type: OneOf(['api_key', 'user']),
    id: Type.String(),
    name: Type.String(),
    role: RoleSchema,
    projectId: Type.Union([Id, Type.Null()]),
    environments: Type.Union([Type.Array(Type.String()), Type.Null()]),
  }),
  account: Type.Union([AccountSchema, Type.Null()]),
});

/** `POST /accounts/{id}/password-reset`: the link, once. */
export const CreatedPasswordResetSchema = Type.Object({
  ...PasswordResetSchema.properties,
  token: Type.String(),
  path: Type.String({ description: 'Open this path on the dashboard to choose the password.' }),
});

/** `POST /invitations`: the link, once. */
export const CreatedInvitationSchema = Type.Object({
  ...InvitationSchema.properties,
  token: Type.String(),
  path: Type.String({ description: 'Open this path on the dashboard to accept.' }),
});

/** `POST /auth/invitation`: what an invitation link offers, before it is accepted. */
export const InvitationPreviewSchema = Type.Object({
  email: Type.Union([Type.String(), Type.Null()]),
  role: RoleSchema,
  project: Type.Union([
    Type.Object({ id: Type.String(), key: Type.String(), name: Type.String() }),
    Type.Null(),
  ]),
  expiresAt: Timestamp,
});

/** `POST /auth/password-reset`: whose password a reset link sets, before it is used. */
export const ResetPreviewSchema = Type.Object({
  email: Type.String(),
  name: Type.String(),
  expiresAt: Timestamp,
});

/** `GET /auth/options`: the ways to sign in to the dashboard. */
export const SignInOptionsSchema = Type.Object({
  passwordSignIn: Type.Boolean(),
  sso: Type.Union([Type.Object({ label: Type.String(), loginPath: Type.String() }), Type.Null()]),
});
