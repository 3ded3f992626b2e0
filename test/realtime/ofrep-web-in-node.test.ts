import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../openfeature/support/server.ts';
import { createKey, flagId, seedVariedProject } from '../openfeature/support/varied-project.ts';
import type { TestServer } from '../support/server.ts';
import { waitFor } from './sse-client.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/ofrep-web-in-node.ts', import.meta.url));

describe('@openfeature/web-sdk with @openfeature/ofrep-web-provider in Node (--experimental-eventsource)', () => {
  let api: TestServer;
  let child: ChildProcess;
  const lines: Record<string, unknown>[] = [];

  const waitForLine = async (match: (line: Record<string, unknown>) => boolean, what: string) => {
    const deadline = Date.now() + 15_000;
    while (!lines.some(match)) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(lines)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return lines.find(match) as Record<string, unknown>;
  };

  beforeAll(async () => {
    api = await startServer();
    await seedVariedProject(api);
    const key = await createKey(api, { role: 'evaluator' });
    child = spawn(process.execPath, ['--experimental-eventsource', FIXTURE, api.url, key], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      lines.push(JSON.parse(line));
    });
  });
  afterAll(async () => {
    child?.kill();
    await api?.close();
  });

  it('with pollInterval 0, gets a change over the event stream as PROVIDER_CONFIGURATION_CHANGED', async () => {
    const ready = await waitForLine((line) => line.event === 'ready', 'the provider to be ready');
    expect(ready).toEqual({ event: 'ready', banner: 'Hi', eventSource: 'function' });
    await waitFor(() => api.realtime.eventStreams.size === 1, 'the stream to open');
    const id = await flagId(api, 'banner-text');
    expect((await api.call('PATCH', `/v1/flags/${id}`, { body: { defaultVariant: 'long' } })).status).toBe(
      200,
    );
    const changed = await waitForLine(
      (line) => line.event === 'changed' && line.banner === 'Hello there',
      'the change',
    );
    expect(changed.flags).toEqual(['banner-text']);
  });
});
