import type { RouteAccess } from '../route-access.ts';

/** Who may provision: an organisation-wide admin key for every environment (decision 1721). */
export const PROVISIONING: RouteAccess = {
  role: 'admin',
  target: () => ({ kind: 'organisation' }),
  environments: () => 'all',
};
