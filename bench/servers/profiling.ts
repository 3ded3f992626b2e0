import { Session } from 'node:inspector';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

// What a bench server answers over IPC to be measured from outside, over a window the parent
// chooses rather than the whole process (start-up excluded): a CPU profile over the inspector
// (`profile-start` with an optional sampling interval in µs, `profile-stop` → `profile`), and the
// event loop's delay (`loop-start`, `loop-stop` → `loop`: how late a 1 ms timer fired at most and
// in all, the longest synchronous stretch the loop ran in that window; and the garbage
// collections in it, by kind: how many, how long in all and at most).

/** Answers `profile-start`/`profile-stop` and `loop-start`/`loop-stop` from the parent. */
export function answerProfiling(): void {
  const profiler = new Session();
  profiler.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      profiler.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
    );
  let loop: ReturnType<typeof monitorEventLoopDelay> | undefined;
  let collections: Record<string, { count: number; ms: number; maxMs: number }> = {};
  const count = (entries: readonly PerformanceEntry[]) => {
    for (const entry of entries) {
      const kind = GC_KINDS[(entry as { detail?: { kind?: number } }).detail?.kind ?? 0] ?? 'other';
      const seen = collections[kind] ?? { count: 0, ms: 0, maxMs: 0 };
      collections[kind] = seen;
      seen.count++;
      seen.ms += entry.duration;
      seen.maxMs = Math.max(seen.maxMs, entry.duration);
    }
  };
  const observer = new PerformanceObserver((list) => count(list.getEntries()));
  process.on('message', async (message: { type?: string; interval?: number }) => {
    if (message?.type === 'profile-start') {
      await post('Profiler.enable');
      // Finer than V8's default 1 ms when asked: a request costs tens of µs.
      if (message.interval !== undefined)
        await post('Profiler.setSamplingInterval', { interval: message.interval });
      await post('Profiler.start');
      process.send?.({ type: 'profile-started' });
    }
    if (message?.type === 'profile-stop') {
      const { profile } = (await post('Profiler.stop')) as { profile: unknown };
      process.send?.({ type: 'profile', profile });
    }
    if (message?.type === 'loop-start') {
      loop?.disable();
      loop = monitorEventLoopDelay({ resolution: 1 });
      loop.enable();
      collections = {};
      observer.observe({ entryTypes: ['gc'] });
      process.send?.({ type: 'loop-started' });
    }
    if (message?.type === 'loop-stop') {
      loop?.disable();
      count(observer.takeRecords());
      observer.disconnect();
      const maxMs = loop === undefined || loop.count === 0 ? 0 : loop.max / 1e6;
      process.send?.({ type: 'loop', maxMs, p99Ms: (loop?.percentile(99) ?? 0) / 1e6, collections });
      loop = undefined;
    }
  });
}

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};
