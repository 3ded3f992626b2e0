import { afterEach, beforeEach, expect, it } from 'vitest';
import { callAsAdmin } from '../support/call-as-admin.ts';
import { describeEachDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// Flags in bulk (docs/decisions/1960-flag-batches.md): the list with whole flags, and
// POST /v1/projects/{p}/flag-batches, many flags' writes in one request, each as its single route
// makes it, each flag answered on its own.

const BATCH = '/v1/projects/shop/flag-batches';

describeEachDatabase('flags in bulk', (database) => {
  let server: TestServer;
  const admin = (method: string, path: string, body?: unknown) => callAsAdmin(server, method, path, body);
  const batch = (flags: unknown[], key?: string) =>
    server.call('POST', BATCH, { body: { flags }, ...(key === undefined ? {} : { key }) });
  const flag = async (key: string) => server.call('GET', `/v1/projects/shop/flags/${key}`);
  const evaluate = async (key: string, environment: string) =>
    (
      await server.call('POST', `/v1/flags/${key}/evaluate?project=shop`, {
        body: { environment, attributes: { targetingKey: 'u1' } },
      })
    ).body;
  const keyOf = async (role: string, environments?: string[]) =>
    (
      await admin('POST', '/v1/projects/shop/api-keys', {
        name: `${role} key`,
        role,
        ...(environments === undefined ? {} : { environments }),
      })
    ).secret as string;

  beforeEach(async () => {
    server = await startTestServer(database);
    await admin('POST', '/v1/projects', { key: 'shop' });
  });
  afterEach(() => server.close());

  it('lists each flag whole with ?configuration=true, as its GET gives it, and only then', async () => {
    await admin('POST', '/v1/projects/shop/segments', { key: 'beta', included: ['ann'] });
    await admin('POST', '/v1/projects/shop/flags', {
      key: 'checkout',
      type: 'string',
      variants: [
        { key: 'old', value: 'old' },
        { key: 'new', value: 'new' },
      ],
      metadata: { team: 'payments' },
    });
    await admin('PATCH', '/v1/projects/shop/flags/checkout', {
      enabled: true,
      targets: [{ variant: 'new', values: ['bob'] }],
      rules: [{ segments: ['beta'], serve: { variant: 'new' } }],
    });
    await admin('POST', '/v1/projects/shop/flags', { key: 'banner' });
    const whole = await server.call('GET', '/v1/projects/shop/flags?configuration=true');
    expect(whole.status).toBe(200);
    for (const listed of whole.body) {
      const { lastEvaluatedAt: _, ...single } = (await flag(listed.key)).body;
      // The list's own summary fields (switches, staleness, code references) beside the whole flag.
      const { enabled, lastEvaluatedAt, stale, codeReferences, ...rest } = listed;
      const environments = Object.fromEntries(
        Object.entries(rest.environments as Record<string, { lastEvaluatedAt: unknown }>).map(
          ([key, { lastEvaluatedAt: _at, ...config }]) => [key, config],
        ),
      );
      expect({ ...rest, environments }).toEqual(single);
    }
    expect(whole.body[1].environments.production.rules[0]).toMatchObject({
      id: expect.any(String),
      segments: ['beta'],
    });
    const summary = await server.call('GET', '/v1/projects/shop/flags');
    expect(Object.keys(summary.body[0].environments.production)).toEqual(['enabled', 'lastEvaluatedAt']);
    expect(summary.body[0].variants).toBeUndefined();
  });

  it('creates and configures many flags in one request, audited per flag and served at once', async () => {
    const res = await batch(
      ['a', 'b', 'c'].map((key) => ({
        flag: key,
        writes: [
          { create: { name: `Flag ${key}` } },
          { patch: { environments: { production: { enabled: true }, development: { enabled: true } } } },
        ],
      })),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ written: 3, requested: 0, refused: 0 });
    expect(
      res.body.flags.map((f: { flag: string; outcome: string; version: number }) => [
        f.flag,
        f.outcome,
        f.version,
      ]),
    ).toEqual([
      ['a', 'written', 2],
      ['b', 'written', 2],
      ['c', 'written', 2],
    ]);
    expect((await flag('b')).body).toMatchObject({
      name: 'Flag b',
      environments: { production: { enabled: true } },
    });
    expect(await evaluate('c', 'production')).toMatchObject({ value: true });
    const log = await server.call('GET', `/v1/projects/shop/audit-log?resourceId=${res.body.flags[0].id}`);
    expect(log.body.map((e: { action: string }) => e.action)).toEqual(['flag.updated', 'flag.created']);
  });

  it('refuses a flag alone, as its single route would, and writes the others', async () => {
    await admin('POST', '/v1/projects/shop/flags', { key: 'stale' }); // version 1
    await admin('PATCH', '/v1/projects/shop/flags/stale', { description: 'moved on' }); // version 2
    await admin('POST', '/v1/projects/shop/flags', { key: 'taken' });
    const res = await batch([
      // The database refuses the key; on PostgreSQL that fails the transaction unless undone to its savepoint.
      { flag: 'taken', writes: [{ create: { name: 'Again' } }] },
      { flag: 'fine', writes: [{ create: {} }, { patch: { enabled: true } }] },
      { flag: 'stale', ifMatch: 1, writes: [{ patch: { enabled: true } }] },
      // Created, then a patch that does not validate: nothing of the flag is written.
      { flag: 'half', writes: [{ create: {} }, { patch: { defaultVariant: 'blue' } }] },
      { flag: 'ghost', writes: [{ patch: { enabled: true } }] },
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ written: 1, requested: 0, refused: 4 });
    const [taken, fine, stale, half, ghost] = res.body.flags;
    expect(taken).toMatchObject({ outcome: 'refused', problem: { status: 409, code: 'conflict' } });
    expect(fine).toMatchObject({ flag: 'fine', outcome: 'written', version: 2 });
    expect(stale).toMatchObject({
      flag: 'stale',
      outcome: 'refused',
      write: 0,
      problem: { status: 412, code: 'precondition_failed' },
    });
    expect(half).toMatchObject({
      flag: 'half',
      outcome: 'refused',
      write: 1,
      problem: { status: 400, code: 'validation_failed' },
    });
    expect(JSON.stringify(half.problem)).toContain('blue');
    expect(ghost).toMatchObject({
      flag: 'ghost',
      outcome: 'refused',
      problem: { status: 404, code: 'flag_not_found' },
    });
    expect((await flag('half')).status).toBe(404);
    expect((await flag('stale')).body).toMatchObject({
      version: 2,
      environments: { production: { enabled: false } },
    });
    expect((await flag('fine')).body.environments.production.enabled).toBe(true);
  });

  it("turns an editor's write to a guarded environment into a change request, and writes the rest", async () => {
    await admin('POST', '/v1/projects/shop/flags', { key: 'checkout' });
    await admin('PATCH', '/v1/projects/shop/environments/production', { requiredApprovals: 1 });
    const editor = await keyOf('editor');
    const res = await batch(
      [
        {
          flag: 'checkout',
          ifMatch: 1,
          writes: [
            { patch: { description: 'new copy', environments: { development: { enabled: true } } } },
            { environment: 'production', patch: { enabled: true } },
          ],
        },
      ],
      editor,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ written: 0, requested: 1, refused: 0 });
    const [item] = res.body.flags;
    expect(item).toMatchObject({
      outcome: 'requested',
      version: 2,
      changeRequests: [{ environment: 'production', requiredApprovals: 1 }],
    });
    const request = await server.call('GET', `/v1/change-requests/${item.changeRequests[0].id}`);
    expect(request.body).toMatchObject({ status: 'open', kind: 'flag.patch', patch: { enabled: true } });
    const stored = (await flag('checkout')).body;
    expect(stored).toMatchObject({
      description: 'new copy',
      environments: { development: { enabled: true }, production: { enabled: false } },
    });
    expect(await evaluate('checkout', 'production')).toMatchObject({ value: false, reason: 'disabled' });
    // An admin's batch writes straight through, as an admin's PATCH does.
    const straight = await batch([
      { flag: 'checkout', writes: [{ environment: 'production', patch: { enabled: true } }] },
    ]);
    expect(straight.body.flags[0]).toMatchObject({ outcome: 'written', changeRequests: [] });
    expect(await evaluate('checkout', 'production')).toMatchObject({ value: true });
  });

  it('refuses, flag by flag, a write outside the environments of the key', async () => {
    await admin('POST', '/v1/projects/shop/flags', { key: 'checkout' });
    const developer = await keyOf('editor', ['development']);
    const res = await batch(
      [
        { flag: 'checkout', writes: [{ environment: 'development', patch: { enabled: true } }] },
        { flag: 'new-one', writes: [{ create: {} }] },
      ],
      developer,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.flags.map((f: { outcome: string }) => f.outcome)).toEqual(['written', 'refused']);
    expect(res.body.flags[1].problem).toMatchObject({ status: 403, code: 'forbidden' });
    expect((await flag('new-one')).status).toBe(404);
  });

  it('refuses a batch over its limits, or one it cannot read one way, whole', async () => {
    const many = Array.from({ length: 1001 }, (_, i) => ({ flag: `f-${i}`, writes: [{ create: {} }] }));
    const tooMany = await batch(many);
    expect(tooMany.status).toBe(413);
    expect(tooMany.body.detail).toBe(
      'A batch holds at most 1000 flags; this one has 1001. Send it in smaller batches.',
    );
    const big = await batch(
      [{ flag: 'big', writes: [{ create: { description: 'x'.repeat(500) } }] }].concat(
        Array.from({ length: 999 }, (_, i) => ({
          flag: `b-${i}`,
          writes: [{ create: { description: 'y'.repeat(1100) } }],
        })),
      ),
    );
    expect(big.status).toBe(413);
    const twice = await batch([
      { flag: 'a', writes: [{ create: {} }] },
      { flag: 'a', writes: [{ delete: true }] },
    ]);
    expect(twice.status).toBe(400);
    expect(twice.body.errors).toEqual([
      { path: '/flags/1/flag', message: 'flag "a" is also item 0: name each flag once' },
    ]);
    const both = await batch([{ flag: 'a', writes: [{ create: {}, delete: true }] }]);
    expect(both.status).toBe(400);
    expect(both.body.errors).toEqual([
      {
        path: '/flags/0/writes/0',
        message: 'must have exactly one of create, patch, delete (has create, delete)',
      },
    ]);
    // Nothing of a refused batch was written.
    expect((await server.call('GET', '/v1/projects/shop/flags')).body).toEqual([]);
  });
});
