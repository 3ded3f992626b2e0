import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// Requests fired together over a real socket: the server runs them side by side, and on
// PostgreSQL so do their transactions. Each outcome below is what one request alone would get.

const ROUNDS = 20;

const statuses = (replies: readonly { status: number }[]) =>
  replies.map((r) => r.status).sort((a, b) => a - b);

describeEachDatabase('concurrent writes', (database) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(database);
  });
  afterAll(() => server.close());

  const createFlag = async (key: string) => {
    const created = await server.call('POST', '/v1/projects/default/flags', { body: { key } });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };

  const createSegment = async (key: string) => {
    const created = await server.call('POST', '/v1/projects/default/segments', { body: { key } });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };

  const auditEvents = async (resourceId: string, action: string) => {
    const query = new URLSearchParams({ resourceId, action, limit: '100' });
    const reply = await server.call('GET', `/v1/projects/default/audit-log?${query}`);
    expect(reply.status).toBe(200);
    return reply.body as unknown[];
  };

  describe(`${ROUNDS} deletes of one resource at once`, () => {
    for (const ifMatch of [false, true]) {
      const how = ifMatch ? 'with If-Match' : 'without If-Match';

      for (const [kind, create, path] of [
        ['flag', createFlag, '/v1/flags'],
        ['segment', createSegment, '/v1/segments'],
      ] as const) {
        it(`delete a ${kind} once (${how}): one 204, the rest 404, one audit event`, async () => {
          const id = await create(`doomed-${ifMatch}`);
          const headers: Record<string, string> = ifMatch ? { 'if-match': '"1"' } : {};
          const replies = await Promise.all(
            Array.from({ length: ROUNDS }, () => server.call('DELETE', `${path}/${id}`, { headers })),
          );
          expect(statuses(replies)).toEqual([204, ...Array<number>(ROUNDS - 1).fill(404)]);
          expect(await auditEvents(id, `${kind}.deleted`)).toHaveLength(1);
        });
      }
    }
  });

  it(`${ROUNDS * 2} patches of one flag at once without If-Match all succeed, and none is lost`, async () => {
    const id = await createFlag('busy');
    const count = ROUNDS * 2;
    const replies = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        server.call('PATCH', `/v1/flags/${id}`, { body: { metadata: { [`k${i}`]: i } } }),
      ),
    );
    expect(statuses(replies)).toEqual(Array<number>(count).fill(200));
    const flag = await server.call('GET', '/v1/projects/default/flags/busy');
    expect(flag.body.version).toBe(count + 1);
    expect(flag.body.metadata).toEqual(
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, i])),
    );
  });

  it('patches racing with If-Match: exactly one per version wins, the others get 412', async () => {
    const id = await createFlag('contested');
    const replies = await Promise.all(
      Array.from({ length: ROUNDS }, (_, i) =>
        server.call('PATCH', `/v1/flags/${id}`, { body: { name: `n${i}` }, headers: { 'if-match': '"1"' } }),
      ),
    );
    expect(statuses(replies)).toEqual([200, ...Array<number>(ROUNDS - 1).fill(412)]);
  });

  it(`a flag never keeps a segment deleted while patches add it (${ROUNDS} segments, 3 flags each, at once)`, async () => {
    const FLAGS = 3;
    const rounds = await Promise.all(
      Array.from({ length: ROUNDS }, async (_, i) => ({
        segmentId: await createSegment(`tmp${i}`),
        flagKeys: await Promise.all(
          Array.from({ length: FLAGS }, async (_, j) => {
            await createFlag(`racer-${i}-${j}`);
            return `racer-${i}-${j}`;
          }),
        ),
      })),
    );
    const flagIds = new Map<string, string>();
    for (const { flagKeys } of rounds)
      for (const key of flagKeys)
        flagIds.set(key, (await server.call('GET', `/v1/projects/default/flags/${key}`)).body.id);

    const outcomes = await Promise.all(
      rounds.map(({ segmentId, flagKeys }, i) =>
        Promise.all([
          server.call('DELETE', `/v1/segments/${segmentId}`),
          ...flagKeys.map((key) =>
            server.call('PATCH', `/v1/flags/${flagIds.get(key)}?environment=production`, {
              body: { rules: [{ segments: [`tmp${i}`], serve: { variant: 'on' } }] },
            }),
          ),
        ]),
      ),
    );
    for (const [i, [remove, ...patches]] of outcomes.entries()) {
      const added = patches.filter((p) => p.status === 200).length;
      // Either a patch came first and the segment is in use (409, and it stays), or the delete
      // did and every patch names a segment that no longer exists (400).
      expect({ remove: remove?.status, refused: patches.filter((p) => p.status === 400).length }).toEqual(
        added > 0 ? { remove: 409, refused: FLAGS - added } : { remove: 204, refused: FLAGS },
      );
      const segment = await server.call('GET', `/v1/segments/${rounds[i]?.segmentId}`);
      expect(segment.status).toBe(added > 0 ? 200 : 404);
      for (const key of rounds[i]?.flagKeys ?? []) {
        // The flag stays editable: a dangling reference would make every later patch a 400.
        const later = await server.call('PATCH', `/v1/flags/${flagIds.get(key)}`, { body: { name: key } });
        expect(later.status).toBe(200);
      }
    }
  });
});
