import { authorize, requireAllEnvironments } from '../../access/access-rules.ts';
import type { Role } from '../../domain/api-key.ts';
import { noProjectAccess, notFound } from '../../domain/errors.ts';
import type { Project } from '../../domain/project.ts';
import type { ProjectStore } from '../../storage/store.ts';
import type { Actor } from './actor.ts';

/**
 * The project a request acts in, checked that the actor may act in it with `role`. When the
 * route's access check already resolved it (the actor's grant), that is trusted as it is;
 * otherwise (the CLI, direct calls) the project is found by id or key and the same rules run.
 * A key bound to another project gets `forbidden` whether or not the project exists, so
 * probing reveals nothing.
 */
export async function accessProject(
  store: ProjectStore,
  actor: Actor,
  idOrKey: string,
  role: Role,
  environment?: string,
): Promise<Project> {
  const granted = actor.grant?.project;
  if (granted !== undefined && (granted.id === idOrKey || granted.key === idOrKey)) return granted;
  const { principal } = actor;
  const project = await store.findProject(idOrKey);
  if (principal.projectId !== null && project?.id !== principal.projectId) {
    throw noProjectAccess();
  }
  if (project === undefined) throw notFound(`No project "${idOrKey}".`);
  authorize(principal, project.id, role, environment);
  return project;
}

/**
 * The project a new flag, segment or environment goes into: an editor's, with every environment,
 * since the new resource exists in (or is used by) every environment of it.
 */
export async function projectToCreateIn(
  store: ProjectStore,
  actor: Actor,
  idOrKey: string,
): Promise<Project> {
  const project = await accessProject(store, actor, idOrKey, 'editor');
  requireAllEnvironments(actor.principal);
  return project;
}
