import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../access/support.ts';
import { type NodeProcess, startNodeProcess } from '../plane/node-process.ts';
import { Core, evaluate, evaluationsCounted, sendEvents, storedUnits, until } from './support.ts';

/**
 * Forwarding survives a `kill -9` (issue 37): events and counts an edge took while its core was
 * down wait on disk, are sent once both return, and count once, also when a batch the core took
 * is sent again because the edge died before deleting it.
 */
const database = process.env.FLAGSTAFF_TEST_DATABASE_URL ? 'postgres' : 'sqlite';
const EVALUATIONS = 25;

describe(`an edge killed with forwarded batches on disk (${database})`, () => {
  let core: Core;
  let projectId: string;
  let client: string;
  let edgeKey: string;
  let edge: NodeProcess | undefined;
  const cache = mkdtempSync(join(tmpdir(), 'flagstaff-edge-kill-'));
  const outbox = join(cache, 'outbox');

  /** `flagstaff edge` in a process of its own, over the one cache directory. */
  const startEdgeProcess = async () => {
    edge = startNodeProcess(
      {
        FLAGSTAFF_UPSTREAM_URL: core.url,
        FLAGSTAFF_EDGE_KEY: edgeKey,
        FLAGSTAFF_EDGE_CACHE: cache,
        FLAGSTAFF_HOST: '127.0.0.1',
        FLAGSTAFF_LOG_LEVEL: 'warn',
      },
      'edge',
    );
    return edge.listening;
  };
  const killEdge = async () => {
    const exited = new Promise((resolve) => edge?.child.once('exit', resolve));
    edge?.child.kill('SIGKILL');
    await exited;
  };
  const batchesWaiting = async (origin: string) => {
    const metrics = await (await fetch(`${origin}/metrics`)).text();
    return Number(/^flagstaff_edge_forward_batches_waiting (\d+)$/m.exec(metrics)?.[1] ?? Number.NaN);
  };
  const onDisk = () => readdirSync(outbox).filter((name) => name.endsWith('.json'));

  beforeAll(async () => {
    core = await Core.open(database);
    const node = await core.start();
    projectId = (await core.store.findProject('default'))?.id as string;
    const flag = await node.call('POST', '/v1/projects/default/flags', { body: { key: 'banner' } });
    expect(flag.status).toBe(201);
    client = (await createKey(node.services, projectId, 'evaluator')).secret;
    edgeKey = (await createKey(node.services, projectId, 'edge')).secret;
  }, 60_000);

  afterAll(async () => {
    await edge?.stop();
    await core?.close();
    rmSync(cache, { recursive: true, force: true });
  });

  it('sends what it took while the core was down once, after a kill -9 and after a batch sent twice', async () => {
    let origin = await startEdgeProcess();
    await core.stop();

    for (let i = 0; i < EVALUATIONS; i++) expect((await evaluate(origin, client)).status).toBe(200);
    const events = [
      { name: 'killed', context: { targetingKey: 'user-1' }, id: 'evt-kill' },
      { name: 'killed', context: { targetingKey: 'user-2' } },
    ];
    await sendEvents(origin, client, events);
    await sendEvents(origin, client, [events[0] as object]);
    // The evaluation counts reach the disk with the edge's next flush (every 10 s).
    await until(async () => (await batchesWaiting(origin)) === 3, 15_000, 'three batches on disk');

    await killEdge();
    origin = await startEdgeProcess();
    expect(await batchesWaiting(origin)).toBe(3);
    // What a `kill -9` between the core taking a batch and the edge deleting it leaves: the
    // same files again once they are sent.
    const copies = join(cache, 'sent-copies');
    mkdirSync(copies);
    for (const name of onDisk()) cpSync(join(outbox, name), join(copies, name));

    await core.start(1);
    await until(async () => onDisk().length === 0, 30_000, 'the batches sent');
    await killEdge();
    for (const name of readdirSync(copies)) cpSync(join(copies, name), join(outbox, name));
    origin = await startEdgeProcess();
    await until(async () => onDisk().length === 0, 30_000, 'the batches sent again');
    // A moment more: anything counted twice would show now.
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(await storedUnits(core.store, projectId, 'killed')).toEqual(['user-1', 'user-2']);
    expect(await evaluationsCounted(core.store, projectId)).toBe(EVALUATIONS);
  }, 90_000);
});
