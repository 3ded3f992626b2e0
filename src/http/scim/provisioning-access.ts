import { Type } from 'typebox';
import type { RouteAccess } from '../route-access.ts';

/** Who may provision: an organisation-wide admin key for every environment (decision 1721). */
export const PROVISIONING: RouteAccess = {
  role: 'admin',
  target: () => ({ kind: 'organisation' }),
  environments: () => 'all',
};

const tags = ['SCIM provisioning'];

/** A provisioning route's options: for PROVISIONING callers only, in the SCIM part of the OpenAPI document. */
export const provisioningRoute = <const Parts extends object>(
  summary: string,
  parts: Parts = {} as Parts,
) => ({
  config: { access: PROVISIONING },
  schema: { tags, summary, ...parts },
});

/** A discovery route's (RFC 7644 §4): public, as it says nothing of this installation. */
export const discoveryRoute = <const Parts extends object>(summary: string, parts: Parts = {} as Parts) => ({
  config: { access: 'public' as const },
  schema: { tags, summary, security: [], ...parts },
});

/** What a SCIM list takes (RFC 7644 §3.4.2): a filter and a page by index and count. */
export const ListQuery = {
  filter: Type.Optional(Type.String({ maxLength: 1000 })),
  startIndex: Type.Optional(Type.Integer()),
  count: Type.Optional(Type.Integer()),
};
