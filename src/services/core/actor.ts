import type { Grant } from '../../access/access-rules.ts';
import type { Principal } from '../../domain/api-key.ts';

/** Who asks, and the request it belongs to (for the audit log). */
export interface Actor {
  readonly principal: Principal;
  readonly requestId: string;
  /**
   * What the route's access check established (http/route-access.ts): the use cases act on it
   * without looking the project up or checking again. Absent when a use case is called
   * directly (the CLI, tests): then it runs the same rules itself.
   */
  readonly grant?: Grant;
}
