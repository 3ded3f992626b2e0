import type { Principal } from '../domain/api-key.ts';

/** Who asks, and the request it belongs to (for the audit log). */
export interface Actor {
  readonly principal: Principal;
  readonly requestId: string;
}
