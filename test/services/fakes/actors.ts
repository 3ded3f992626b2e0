import type { Principal, Role } from '../../../src/domain/api-key.ts';
import type { ErrorCode } from '../../../src/domain/errors.ts';
import type { Actor } from '../../../src/services/core/actor.ts';

/** An API key acting: organisation-wide unless given a project, every environment unless given some. */
export function anActor(
  role: Role,
  scope: Partial<Pick<Principal, 'projectId' | 'environments'>> = {},
): Actor {
  const principal: Principal = {
    type: 'api_key',
    id: `key_${role}`,
    name: `${role} key`,
    role,
    projectId: scope.projectId ?? null,
    environments: scope.environments ?? null,
  };
  return { principal, requestId: `req-${role}` };
}

/** What `rejects.toMatchObject` compares a refusal with: the domain error's code (HTTP answers its problem). */
export const refusedWith = (code: ErrorCode) => ({ code });
