import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MODULE = fileURLToPath(new URL('./idle-memory-release.ts', import.meta.url));

/** Runs `body` as an ES module in a Node process of its own with `flags`; resolves its standard output. */
function runInProcess(flags: string[], body: string): Promise<string> {
  const script = `import { keptTickObject, releaseMemoryWhenIdle } from ${JSON.stringify(MODULE)};\n${body}`;
  const child = spawn(process.execPath, [...flags, '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`exit ${code}: ${output}`))));
  });
}

/**
 * Allocates a burst (80 MB of strings, then dropped), goes quiet for 12 s, and answers the full
 * collections V8 made (--trace-gc). The reducer's first look comes 1 s after a full collection
 * instead of 8 (the flag moves only that look) and still sees the burst; its next comes 8 s later,
 * as in production.
 */
async function burstThenQuiet(release: boolean): Promise<string[]> {
  const output = await runInProcess(
    ['--expose-gc', '--trace-gc', '--gc-memory-reducer-start-delay-ms=1000'],
    `if (${release}) releaseMemoryWhenIdle();
     let kept = [];
     for (let i = 0; i < 80_000; i++) kept.push('x'.repeat(1000) + i);
     kept = undefined;
     globalThis.gc();
     await new Promise((resolve) => setTimeout(resolve, 12_000));`,
  );
  return output.split('\n').filter((line) => line.includes('Mark-Compact'));
}

const reducing = (collections: string[]) => collections.filter((line) => line.includes('(reduce)'));

describe('releaseMemoryWhenIdle', () => {
  it('lets V8 run a memory-reducing collection once the process goes quiet, which it otherwise does not', async () => {
    const [released, kept] = await Promise.all([burstThenQuiet(true), burstThenQuiet(false)]);
    // Its collection gives the pool of freed pages back: 74 MB committed -> 9 MB when tried.
    expect(reducing(released).length).toBeGreaterThan(0);
    expect(reducing(kept)).toEqual([]);
    expect(kept.length).toBeGreaterThan(0);
  }, 40_000);

  it('keeps the shape of process.nextTick’s queue entries through a memory-reducing collection', async () => {
    // Ticks made after V8's most thorough collection have the very map of the one kept before
    // it: their literal's define stays monomorphic (without the kept one, it went megamorphic).
    const output = await runInProcess(
      ['--expose-gc', '--allow-natives-syntax'],
      `import { createHook } from 'node:async_hooks';
       releaseMemoryWhenIdle();
       for (let i = 0; i < 100_000; i++) process.nextTick(() => {});
       await new Promise((resolve) => setTimeout(resolve, 10));
       globalThis.gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
       let after;
       const hook = createHook({ init(_id, type, _trigger, resource) { if (type === 'TickObject') after ??= resource; } }).enable();
       process.nextTick(() => {});
       hook.disable();
       const kept = keptTickObject();
       console.log(JSON.stringify({ kept: kept !== undefined, sameMap: kept !== undefined && %HaveSameMap(kept, after) }));`,
    );
    expect(JSON.parse(output)).toEqual({ kept: true, sameMap: true });
  }, 20_000);
});
