import { afterAll, beforeAll, expect, it } from 'vitest';
import { RunningExperimentsInMemory } from '../../src/plane/running-experiments.ts';
import { callAsAdmin } from '../support/call-as-admin.ts';
import { describeEachDatabase } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { draftCheckoutExperiment } from './support/checkout-experiment.ts';

// Running experiments in memory (decision 1940): the node that starts or stops one answers from
// its next evaluation; another node over the same database follows within its poll.

describeEachDatabase('running experiments, in memory on every node', (database) => {
  let server: TestServer;
  let otherNode: RunningExperimentsInMemory;
  let projectId = '';
  const admin = (method: string, path: string, body?: unknown) => callAsAdmin(server, method, path, body);

  beforeAll(async () => {
    server = await startTestServer(database);
    // A second node's follower over the same database, polling fast.
    otherNode = new RunningExperimentsInMemory(server.store.experiments);
    otherNode.start((error) => {
      throw error;
    }, 50);
    projectId = (await admin('GET', '/v1/projects/default')).id;
    await admin('POST', '/v1/projects/default/flags', { key: 'banner' });
    await draftCheckoutExperiment(admin);
  });
  afterAll(async () => {
    otherNode?.stop();
    await server?.close();
  });

  it('covers the flag from the start, under the experiment’s id, on this node at once and on another by its poll', async () => {
    const here = server.node.plane.runningExperiments;
    expect(here.covering(projectId, 'production', 'banner')).toBeUndefined();
    const started = await admin('POST', '/v1/projects/default/experiments/checkout/start');
    expect(here.covering(projectId, 'production', 'banner')).toEqual({
      key: started.id,
      variants: ['off', 'on'],
    });
    expect(here.covering(projectId, 'development', 'banner')).toBeUndefined();
    const followed = async () => otherNode.covering(projectId, 'production', 'banner')?.key === started.id;
    expect(await eventually(followed, 2000)).toBe(true);
    await admin('POST', '/v1/projects/default/experiments/checkout/stop');
    expect(here.covering(projectId, 'production', 'banner')).toBeUndefined();
    const gone = async () => otherNode.covering(projectId, 'production', 'banner') === undefined;
    expect(await eventually(gone, 2000)).toBe(true);
  });
});
