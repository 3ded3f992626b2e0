import { createHook } from 'node:async_hooks';
import { Script } from 'node:vm';

/**
 * Lets V8 give memory back once the node goes quiet, without slowing it after (decision 2097;
 * FLAGSTAFF_RELEASE_IDLE_MEMORY=off leaves V8 as it is). Two workarounds of Node 24's V8 (13.6):
 *
 * - Its memory reducer never runs in a process that allocates nothing on the embedder's heap
 *   (cppgc): that heap's allocation rate is then exactly 0, which V8 reads as the highest rate
 *   there is, so every tick says "high alloc" and the pages the start freed (its page pool,
 *   10–40 MB at 10,000 flags) stay resident. A `vm.Script` is a cppgc object: compiling a
 *   one-character one now and every minute keeps the rate above 0 (it decays to exactly 0 in
 *   ~110 s), and the reducer collects ~10 s after allocation falls, as on Node 22.
 * - A memory-reducing collection drops the maps of shapes no live object has. An object literal
 *   with computed keys whose map died has its define go megamorphic for good: V8 compares the
 *   cleared map with the new one and gives up. `process.nextTick` makes such a literal for every
 *   tick; after one such collection each of them costs a runtime call (server CPU a request
 *   +7–25 %). One tick object kept for the life of the process keeps its shape's maps alive.
 */
export function releaseMemoryWhenIdle(): void {
  // The heap is the process's: once however many nodes it starts (tests start several).
  if (started) return;
  started = true;
  keepTickObjectShape();
  const allocateOnTheEmbedderHeap = () => void new Script('0');
  allocateOnTheEmbedderHeap();
  setInterval(allocateOnTheEmbedderHeap, NUDGE_EVERY_MS).unref();
}

let started = false;

/** Well inside the ~110 s after which V8's smoothed rate of one allocation underflows to 0. */
const NUDGE_EVERY_MS = 60_000;

/** One of `process.nextTick`'s queue entries, kept so that its shape outlives every collection. */
let tickObject: object | undefined;

/** The only way to reach a tick object is the async hook told of its making. */
function keepTickObjectShape(): void {
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject') tickObject ??= resource;
    },
  }).enable();
  process.nextTick(() => {});
  hook.disable();
}

/** The tick object kept, once `releaseMemoryWhenIdle` ran. */
export const keptTickObject = (): object | undefined => tickObject;
