import type { Static } from 'typebox';
import {
  type FlagBatchItem,
  type FlagBatchResultSchema,
  MAX_FLAGS_PER_BATCH,
} from '../../domain/schemas/flag-batch.ts';
import { type ApiClient, ApiError, type Progress } from './api-client.ts';
import type { Json } from './model.ts';
import type { PlannedResource, ProjectPlan } from './plan.ts';
import { outsideProject } from './write-scope.ts';

// Makes a plan's writes in the plan's (dependency) order: the project, environments and segments
// resource by resource, flags in batches (decision 1960). A resource whose write is refused stops
// there with one line, and the others go on (docs/flags-as-code.md).

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

/** What the batch route answers of one flag (src/domain/schemas/flag-batch.ts). */
type FlagAnswer = Static<typeof FlagBatchResultSchema>['flags'][number];

/** The most bytes apply puts in one batch: the API's 1 MiB body limit, with room to spare. */
const BATCH_BYTES = 900_000;

/** A planned flag as one item of a batch: its writes as the single routes would have been sent them. */
function batchItem(resource: PlannedResource): FlagBatchItem {
  const writes = resource.writes.map((write) => {
    if (write.method === 'POST') {
      const { key: _, ...create } = write.body as Record<string, Json>;
      return { create };
    }
    if (write.method === 'DELETE') return { delete: true as const };
    const environment = new URL(write.path, 'http://flagstaff.invalid').searchParams.get('environment');
    return { patch: write.body, ...(environment === null ? {} : { environment }) };
  });
  const first = resource.writes[0]?.ifMatch;
  return {
    flag: resource.key,
    ...(typeof first === 'number' ? { ifMatch: first } : {}),
    writes,
  } as FlagBatchItem;
}

/** What became of a flag, from its answer in the batch. */
function flagOutcomes(
  client: ApiClient,
  plan: ProjectPlan,
  resource: PlannedResource,
  answer: FlagAnswer,
): Outcome[] {
  if (answer.problem !== undefined) {
    const { status, code, detail, errors } = answer.problem;
    return [
      { kind: 'failed', resource, reason: reasonOf(new ApiError(status, code, detail, errors), resource) },
    ];
  }
  const requests: Outcome[] = answer.changeRequests.map((request) => ({
    kind: 'change-request',
    resource,
    environment: request.environment,
    id: request.id,
    link: changeRequestsLink(client.server, plan.project),
    requiredApprovals: request.requiredApprovals,
  }));
  return requests.length < resource.writes.length ? [{ kind: 'done', resource }, ...requests] : requests;
}

/** Sends planned flags in batches the server takes (decision 1960); what happened to each. */
class FlagBatches {
  readonly #client: ApiClient;
  readonly #progress: Progress | undefined;
  readonly #total: number;
  #done = 0;
  #sent = 0;

  constructor(client: ApiClient, total: number, progress: Progress | undefined) {
    this.#client = client;
    this.#total = total;
    this.#progress = progress;
  }

  async send(plan: ProjectPlan, resources: readonly PlannedResource[]): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    let batch: { resource: PlannedResource; item: FlagBatchItem }[] = [];
    let bytes = 0;
    for (const resource of resources) {
      const item = batchItem(resource);
      const size = JSON.stringify(item).length + 1;
      if (batch.length === MAX_FLAGS_PER_BATCH || (batch.length > 0 && bytes + size > BATCH_BYTES)) {
        outcomes.push(...(await this.#send(plan, batch)));
        batch = [];
        bytes = 0;
      }
      batch.push({ resource, item });
      bytes += size;
    }
    if (batch.length > 0) outcomes.push(...(await this.#send(plan, batch)));
    return outcomes;
  }

  async #send(
    plan: ProjectPlan,
    batch: readonly { resource: PlannedResource; item: FlagBatchItem }[],
  ): Promise<Outcome[]> {
    let outcomes: Outcome[];
    try {
      const answer = await this.#client.request<{ flags: FlagAnswer[] }>(
        'POST',
        `/v1/projects/${encodeURIComponent(plan.project)}/flag-batches`,
        { body: { flags: batch.map((b) => b.item) } },
      );
      outcomes = answer.body.flags.flatMap((flag) =>
        flagOutcomes(this.#client, plan, (batch[flag.index] as { resource: PlannedResource }).resource, flag),
      );
    } catch (error) {
      // Refused whole (the key may not write flags here, the server is away): every flag of it failed.
      outcomes = batch.map(({ resource }) => ({
        kind: 'failed',
        resource,
        reason: reasonOf(error, resource),
      }));
    }
    this.#done += batch.length;
    this.#sent += 1;
    if (this.#sent > 1 || this.#done < this.#total) this.#progress?.(this.#done, this.#total);
    return outcomes;
  }
}

/**
 * Every write of the plans, in order; what happened to each resource. Flags go in batches, each
 * run of them between other resources in plan order, so segments a flag needs exist first and a
 * segment is deleted only after the flags that used it. `progress` hears how many flags are
 * applied when they take more than one batch.
 */
export async function applyPlans(
  client: ApiClient,
  plans: readonly ProjectPlan[],
  progress?: Progress,
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const flags = plans.flatMap((p) => p.resources).filter((r) => r.kind === 'flag' && r.writes.length > 0);
  const batches = new FlagBatches(client, flags.length, progress);
  for (const plan of plans) {
    let run: PlannedResource[] = [];
    const flush = async () => {
      outcomes.push(...(await batches.send(plan, run)));
      run = [];
    };
    for (const resource of plan.resources) {
      if (resource.writes.length === 0) continue;
      // Every request is checked before any of the resource is sent (decision 1901).
      const outside = resource.writes
        .map((write) => outsideProject(plan.project, resource.kind, write))
        .find((reason) => reason !== undefined);
      if (outside !== undefined) {
        outcomes.push({ kind: 'failed', resource, reason: outside });
        continue;
      }
      if (resource.kind === 'flag') {
        run.push(resource);
        continue;
      }
      await flush();
      outcomes.push(...(await applyResource(client, plan, resource)));
    }
    await flush();
  }
  return outcomes;
}
