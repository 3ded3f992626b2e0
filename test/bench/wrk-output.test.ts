import { describe, expect, it } from 'vitest';
import { parseWrk } from '../../bench/wrk.ts';

const run = (extra: string) => `Running 4s test @ http://127.0.0.1:41981/v1/flags/checkout-redesign
  1 threads and 50 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     2.21ms  812.45us  21.53ms   91.20%
    Req/Sec    22.93k     1.05k   24.70k    72.50%
  Latency Distribution
     50%    2.05ms
     75%    2.31ms
     90%  867.00us
     99%    1.02s
  91283 requests in 4.01s, 36.21MB read
${extra}Requests/sec:  22763.84
Transfer/sec:      9.03MB
`;

describe('the HTTP benchmark reading wrk', () => {
  it('takes the answered requests, the seconds and the latency percentiles in milliseconds', () => {
    expect(parseWrk(run(''))).toEqual({
      ok: 91283,
      failures: undefined,
      seconds: 4.01,
      p50: 2.05,
      p99: 1020,
    });
  });

  it('counts answers that were not 2xx and socket errors as failures, which abort a run', () => {
    const parsed = parseWrk(
      run('  Socket errors: connect 0, read 3, write 0, timeout 2\n  Non-2xx or 3xx responses: 12\n'),
    );
    expect(parsed.ok).toBe(91283 - 12);
    expect(parsed.failures).toBe(
      '12 responses not 2xx; socket errors: connect 0, read 3, write 0, timeout 2',
    );
  });

  it('refuses output without a result rather than reporting zero', () => {
    expect(() => parseWrk('unable to connect to 127.0.0.1:1 Connection refused\n')).toThrow(/no result/);
  });
});
