import { createContext, useContext } from 'react';
import type { Me, Project, Role } from './api.ts';

const RANK: Readonly<Record<Role, number>> = { edge: -1, evaluator: 0, viewer: 1, editor: 2, admin: 3 };

export interface SessionValue {
  readonly me: Me;
  readonly signOut: () => void;
}

export const SessionContext = createContext<SessionValue | null>(null);

export function useSession(): SessionValue {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside the signed-in app');
  return session;
}

/**
 * Whether the signed-in person has at least `role` in the project (undefined: organisation-wide).
 * Only to hide what would be refused: the API decides.
 */
export function can(me: Me, role: Role, project?: Project): boolean {
  const { actor } = me;
  if (RANK[actor.role] < RANK[role]) return false;
  if (project === undefined) return actor.projectId === null;
  return actor.projectId === null || actor.projectId === project.id;
}
