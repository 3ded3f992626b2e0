import { readFileSync } from 'node:fs';
import { expect, it, vi } from 'vitest';
import { releaseFreedMemory, whenQuiet } from '../../src/plane/freed-memory.ts';

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

it('gives memory back once after a run of bursts, when they have been quiet for a while', () => {
  vi.useFakeTimers();
  try {
    const release = vi.fn();
    const burst = whenQuiet(2000, release);
    for (let batch = 0; batch < 20; batch++) {
      burst();
      vi.advanceTimersByTime(500);
    }
    expect(release).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1500);
    expect(release).toHaveBeenCalledOnce();
  } finally {
    vi.useRealTimers();
  }
});
