import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFlagsAsCode } from '../src/cli/flags-as-code/command.ts';
import { MAX_FLAGS_PER_BATCH } from '../src/domain/schemas/flag-batch.ts';
import { isMain, nextMessage, report, start } from './child.ts';
import { mb, median, ms, type Row } from './stats.ts';

// Flags as code at 10,000 flags (issue 38, major 3; decision 1960), against a server in a process
// of its own with the default rate limits (50 management requests a second per key), as a CI job
// meets it: importing 10,000 flags through the bulk path (POST …/flag-batches, 1,000 a batch),
// then `flagstaff pull` and `flagstaff plan` of them, in this process. The baseline is one request
// measured in the same run: GET of one page of the list (1,000 whole flags). Target: pull and plan
// under 20 s each (before: 215 s and 221 s, one GET per flag).

const FLAGS = 10_000;
const ADMIN_KEY = 'fsk_bench-fac-admin-key-0123456789abcdefghijkl';
const TARGET_SECONDS = 20;

/** What a team's project holds: a third of the flags on in production with a rule, tags, a string flag in ten. */
function flagItem(n: number) {
  const key = `flag-${String(n).padStart(5, '0')}`;
  const string = n % 10 === 0;
  return {
    flag: key,
    writes: [
      {
        create: {
          tags: [`team-${n % 7}`],
          ...(string
            ? {
                type: 'string',
                variants: [
                  { key: 'old', value: 'old' },
                  { key: 'new', value: 'new' },
                ],
              }
            : {}),
        },
      },
      ...(n % 3 === 0
        ? [
            {
              patch: {
                enabled: true,
                rules: [
                  {
                    segments: ['beta'],
                    conditions: [
                      { type: 'attribute', attribute: 'country', operator: 'in', values: ['BE', 'NL'] },
                    ],
                    serve: { variant: string ? 'new' : 'on' },
                  },
                ],
              },
            },
          ]
        : []),
    ],
  };
}

async function call(url: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text };
}

/** Seconds `work` takes. */
async function seconds(work: () => Promise<unknown>): Promise<number> {
  const began = performance.now();
  await work();
  return (performance.now() - began) / 1000;
}

/** `flagstaff <command>` in this process; fails the bench if it does. */
async function cli(command: 'pull' | 'plan', url: string, args: string[]): Promise<void> {
  let err = '';
  const code = await runFlagsAsCode(
    command,
    args,
    { out: () => {}, err: (text) => (err += text) },
    { FLAGSTAFF_URL: url, FLAGSTAFF_KEY: ADMIN_KEY },
  );
  if (code !== 0) throw new Error(`flagstaff ${command} exited ${code}: ${err}`);
}

async function rows(): Promise<Row[]> {
  const server = start('./servers/flags-as-code.ts', {
    quiet: true,
    env: { FLAGSTAFF_ADMIN_KEY: ADMIN_KEY },
  });
  const { url } = await nextMessage<{ url: string }>(server, 'ready');
  const dir = await mkdtemp(join(tmpdir(), 'flagstaff-fac-files-'));
  try {
    await call(url, 'POST', '/v1/projects', { key: 'shop' });
    await call(url, 'POST', '/v1/projects/shop/segments', { key: 'beta', included: ['ann'] });

    let limited = 0;
    const importing = await seconds(async () => {
      for (let start = 0; start < FLAGS; start += MAX_FLAGS_PER_BATCH) {
        const flags = Array.from({ length: Math.min(MAX_FLAGS_PER_BATCH, FLAGS - start) }, (_, i) =>
          flagItem(start + i),
        );
        const answer = await call(url, 'POST', '/v1/projects/shop/flag-batches', { flags });
        if (answer.status === 429) limited += 1;
        if (answer.status !== 200)
          throw new Error(`batch at ${start}: ${answer.status} ${answer.text.slice(0, 500)}`);
      }
    });

    // The baseline: one page of the list, 1,000 whole flags, as pull reads them.
    const page = [];
    for (let i = 0; i < 5; i++) {
      page.push(
        await seconds(async () => {
          const answer = await call(url, 'GET', '/v1/projects/shop/flags?configuration=true&limit=1000');
          if (answer.status !== 200) throw new Error(`list: ${answer.status} ${answer.text.slice(0, 500)}`);
        }),
      );
    }
    const baseline = median(page);

    const rssBefore = process.memoryUsage().rss;
    const pull = await seconds(() => cli('pull', url, [dir, '--project', 'shop']));
    const peakAfterPull = process.resourceUsage().maxRSS * 1024;
    const plan = await seconds(() => cli('plan', url, [dir]));
    const peak = process.resourceUsage().maxRSS * 1024;

    const base = `${ms(baseline * 1000)} (one GET of 1,000 whole flags)`;
    const timed = (figure: string, value: number, target: boolean): Row => ({
      section: 'flags-as-code',
      figure,
      value: `${value.toFixed(1)} s`,
      baseline: base,
      ratio: value / baseline,
      target: target ? `< ${TARGET_SECONDS} s` : '',
      ...(target ? { met: value < TARGET_SECONDS } : {}),
    });
    return [
      {
        ...timed(
          `import ${FLAGS.toLocaleString('en-US')} flags through POST …/flag-batches (${FLAGS / MAX_FLAGS_PER_BATCH} batches), default rate limits`,
          importing,
          false,
        ),
        note: `${limited} answers of 429`,
      },
      timed(`flagstaff pull of ${FLAGS.toLocaleString('en-US')} flags`, pull, true),
      timed(`flagstaff plan of ${FLAGS.toLocaleString('en-US')} flags (nothing to change)`, plan, true),
      ...(
        [
          ['pull', peakAfterPull],
          ['pull and plan', peak],
        ] as const
      ).map(
        ([over, bytes]): Row => ({
          section: 'flags-as-code',
          figure: `CLI process peak RSS over ${over}`,
          value: mb(bytes),
          baseline: `${mb(rssBefore)} (before pull)`,
          ratio: bytes / rssBefore,
          target: '',
        }),
      ),
    ];
  } finally {
    server.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) report(await rows());
