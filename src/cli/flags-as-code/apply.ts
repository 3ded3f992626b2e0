import { type ApiClient, ApiError } from './api-client.ts';
import type { PlannedResource, ProjectPlan } from './plan.ts';
import { outsideProject } from './write-scope.ts';

// Makes a plan's writes, resource by resource in the plan's (dependency) order. A resource whose
// write is refused stops there with one line, and the others go on (docs/flags-as-code.md).

export type Outcome =
  | { readonly kind: 'done'; readonly resource: PlannedResource }
  | {
      readonly kind: 'change-request';
      readonly resource: PlannedResource;
      readonly environment: string;
      readonly id: string;
      readonly link: string;
      readonly requiredApprovals: number;
    }
  | { readonly kind: 'failed'; readonly resource: PlannedResource; readonly reason: string };

/** The dashboard's page of a project's change requests (dashboard/src/app.tsx). */
export const changeRequestsLink = (server: string, project: string) =>
  `${server}/projects/${encodeURIComponent(project)}/change-requests`;

function reasonOf(error: unknown, resource: PlannedResource): string {
  if (!(error instanceof ApiError)) return (error as Error).message;
  if (error.status === 412) {
    return `changed on the server since it was planned (at version ${resource.version}); not overwritten: pull or plan again`;
  }
  const details = error.errors.map((e) => `${e.path}: ${e.message}`).join('; ');
  const why =
    error.status === 403 ? 'refused: the key may not do this' : `refused (${error.status} ${error.code})`;
  return `${why}: ${error.message}${details && !error.message.includes(details) ? ` [${details}]` : ''}`;
}

async function applyResource(
  client: ApiClient,
  plan: ProjectPlan,
  resource: PlannedResource,
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let id = resource.id;
  let version: number | undefined = resource.version;
  for (const write of resource.writes) {
    const ifMatch = write.ifMatch === 'previous' ? version : write.ifMatch;
    const outside = outsideProject(plan.project, resource.kind, write);
    if (outside !== undefined) {
      outcomes.push({ kind: 'failed', resource, reason: outside });
      return outcomes;
    }
    try {
      const answer = await client.request<{
        id: string;
        version: number;
        requiredApprovals?: number;
        environment?: string;
      }>(write.method, write.path.replace('{id}', encodeURIComponent(id ?? '')), {
        ...(write.body === undefined ? {} : { body: write.body }),
        ...(ifMatch === undefined ? {} : { ifMatch }),
      });
      if (answer.status === 202) {
        outcomes.push({
          kind: 'change-request',
          resource,
          environment: answer.body.environment ?? write.environment ?? 'production',
          id: answer.body.id,
          link: changeRequestsLink(client.server, plan.project),
          requiredApprovals: answer.body.requiredApprovals ?? 1,
        });
        continue;
      }
      if (answer.status !== 204) {
        id = answer.body.id;
        version = answer.body.version;
      }
    } catch (error) {
      outcomes.push({ kind: 'failed', resource, reason: reasonOf(error, resource) });
      return outcomes;
    }
  }
  if (!outcomes.some((o) => o.kind === 'change-request') || resource.writes.length > outcomes.length) {
    outcomes.unshift({ kind: 'done', resource });
  }
  return outcomes;
}

/** Every write of the plans, in order; what happened to each resource. */
export async function applyPlans(client: ApiClient, plans: readonly ProjectPlan[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const plan of plans) {
    for (const resource of plan.resources) {
      if (resource.writes.length === 0) continue;
      outcomes.push(...(await applyResource(client, plan, resource)));
    }
  }
  return outcomes;
}
