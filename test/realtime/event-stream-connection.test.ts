import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyRevocations } from '../../src/plane/key-revocations.ts';
import { ListenerHub } from '../../src/plane/listener-hub.ts';
import type { ProjectChange, ProjectChanges } from '../../src/plane/project-changes.ts';
import { openEventStreamConnection } from '../../src/realtime/event-stream-connection.ts';
import { SseStreams } from '../../src/realtime/sse-streams.ts';
import type { StreamGrant } from '../../src/realtime/stream-access.ts';
import { openSse, waitFor } from './sse-client.ts';

/** A project whose revision the test moves by hand: what the snapshot registry does on a write. */
class HandMovedProject implements ProjectChanges {
  revision = 7;
  readonly #hub = new ListenerHub<ProjectChange>();
  subscribe(projectId: string, listener: (change: ProjectChange) => void): () => void {
    return this.#hub.subscribe(projectId, listener);
  }
  revisionOf(): number {
    return this.revision;
  }
  changedAt(): number {
    return 0;
  }
  change(): void {
    this.revision++;
    this.#hub.publish('prj_1', { projectId: 'prj_1', revision: this.revision, at: Date.now() });
  }
}

const grant = {
  keyId: 'key_1',
  projectId: 'prj_1',
  environment: 'production',
  expiresAt: Date.now() / 1000 + 3600,
  endsAt: Date.now() / 1000 + 3600,
} as StreamGrant;

describe('event stream connections', () => {
  let server: Server | undefined;
  let streams: SseStreams | undefined;
  afterEach(async () => {
    streams?.closeAll();
    // The client may have opened a spare connection it never used; that one is not a stream's.
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  /** A bare HTTP server whose every request opens a stream; `prepare` may alter the response first. */
  async function serve(prepare: (response: ServerResponse) => void = () => {}) {
    const project = new HandMovedProject();
    const revocations = new KeyRevocations();
    const open = new SseStreams(project, revocations);
    streams = open;
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      prepare(response);
      open.open(openEventStreamConnection(request, response, { 'x-request-id': 'req_1' }), grant);
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}/events`, project, revocations, streams: open };
  }

  for (const [name, framing, prepare] of [
    // Taken over, the body runs until the connection closes; on the response, it is chunked.
    ['taken from the HTTP server', null, undefined],
    // Where Node does not look as expected (here: its finish listener is gone), the stream stays on the response.
    [
      'kept on the HTTP response',
      'chunked',
      (response: ServerResponse) => response.removeAllListeners('finish'),
    ],
  ] as const) {
    it(`delivers changes, headers and the end of the stream (${name})`, async () => {
      const { url, project, revocations, streams: open } = await serve(prepare);
      const stream = await openSse(url);
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(stream.headers.get('x-request-id')).toBe('req_1');
      expect(stream.headers.get('transfer-encoding')).toBe(framing);
      expect(await stream.waitForId()).toBe('7');
      project.change();
      const [event] = await stream.waitForEvents(1);
      expect(event).toEqual({ id: '8', data: expect.stringContaining('"etag":"8"') });
      revocations.revoked('key_1');
      await stream.ended;
      expect(open.size).toBe(0);
    });
  }

  it('forgets a stream whose client goes away, and ends the others at shutdown', async () => {
    const { url, streams: open } = await serve();
    const leaving = await openSse(url);
    const staying = await openSse(url);
    await Promise.all([leaving.waitForId(), staying.waitForId()]);
    leaving.close();
    await waitFor(() => open.size === 1, 'the closed stream to be forgotten');
    open.closeAll();
    await staying.ended;
    expect(open.size).toBe(0);
  });
});
