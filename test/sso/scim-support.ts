import { ADMIN_KEY, type CallOptions, type DashboardServer, type Reply } from '../dashboard/support.ts';

// The SCIM 2.0 schema URNs (RFC 7643, RFC 7644) the answers carry.
export const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

/** A SCIM request as Okta or Entra send it: application/scim+json, the admin key unless told otherwise. */
export function scimRequest(
  server: DashboardServer,
  method: string,
  path: string,
  body?: unknown,
  options: CallOptions = {},
): Promise<Reply> {
  return server.call(method, `/scim/v2${path}`, {
    key: ADMIN_KEY,
    origin: null,
    ...options,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }),
      ...options.headers,
    },
    ...(body === undefined ? {} : { body }),
  });
}
