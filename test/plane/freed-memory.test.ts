import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { releaseFreedMemory } from '../../src/plane/freed-memory.ts';

/** The process's anonymous resident memory, as the kernel counts it (what RSS limits and OOM kills see). */
const residentAnonymous = (): number =>
  Number(/^RssAnon:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? Number.NaN) * 1024;

it('gives the system back what a burst of work freed, without putting gc in the application’s reach', () => {
  // A start's burst in small: ~35 MB of objects, then dropped.
  let burst: unknown[] | undefined = Array.from({ length: 300_000 }, (_, i) => ({
    i,
    text: `flag ${i}`,
    list: [i],
  }));
  expect(burst).toHaveLength(300_000);
  const during = residentAnonymous();
  burst = undefined;
  releaseFreedMemory();
  expect(during - residentAnonymous()).toBeGreaterThan(20 * 2 ** 20);
  expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  // Again, as the next start-up or import would: the collector it found is reused.
  expect(() => releaseFreedMemory()).not.toThrow();
});
