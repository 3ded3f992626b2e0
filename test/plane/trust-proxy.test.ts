import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { type Harness, startHarness } from '../access/support.ts';
import { testDatabases } from '../support/database.ts';

const [sqlite] = testDatabases();
const rateLimits = { evaluation: 0, management: 0, failedAuthentication: { burst: 2, perSecond: 1 } };

describe('FLAGSTAFF_TRUST_PROXY', () => {
  const harnesses: Harness[] = [];
  afterEach(async () => {
    for (const harness of harnesses.splice(0)) await harness.close();
  });

  async function node(trustProxy: false | number | readonly string[]): Promise<Harness> {
    const harness = await startHarness(sqlite as never, { rateLimits, trustProxy });
    harnesses.push(harness);
    return harness;
  }

  /** Statuses of three failed authentications, all through one proxy at 10.0.0.1, for clients `clients`. */
  const guesses = (harness: Harness, clients: readonly string[]) =>
    Promise.all(
      clients.map(
        async (client) =>
          (
            await harness.call('GET', '/v1/projects', {
              key: 'fsk_wrong',
              from: '10.0.0.1',
              headers: { 'x-forwarded-for': client },
            })
          ).status,
      ),
    );

  it('unset: X-Forwarded-For is ignored, every client behind the proxy shares its address', async () => {
    const harness = await node(false);
    expect(await guesses(harness, ['1.1.1.1', '2.2.2.2', '3.3.3.3'])).toEqual([401, 401, 429]);
  });

  it('a hop count or the proxy’s CIDR: failures are counted per client named in X-Forwarded-For', async () => {
    for (const trust of [1, ['10.0.0.0/8']] as const) {
      const harness = await node(trust);
      expect(await guesses(harness, ['1.1.1.1', '2.2.2.2', '3.3.3.3'])).toEqual([401, 401, 401]);
      expect(await guesses(harness, ['1.1.1.1', '1.1.1.1'])).toEqual([401, 429]);
    }
  });

  it('a proxy outside the trusted CIDRs is not believed', async () => {
    const harness = await node(['192.168.0.0/16']);
    expect(await guesses(harness, ['1.1.1.1', '2.2.2.2', '3.3.3.3'])).toEqual([401, 401, 429]);
  });

  it('is read as a hop count or a list of addresses and CIDRs, and refuses anything else', () => {
    expect(loadConfig({ FLAGSTAFF_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ FLAGSTAFF_TRUST_PROXY: '10.0.0.0/8, ::1' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '::1',
    ]);
    for (const bad of ['yes', '10.0.0.0/33', '10.0.0/8', 'fe80::/129']) {
      expect(() => loadConfig({ FLAGSTAFF_TRUST_PROXY: bad })).toThrow(/FLAGSTAFF_TRUST_PROXY/);
    }
  });
});
