import { Script } from 'node:vm';

/**
 * Lets V8 give memory back once the node goes quiet (FLAGSTAFF_RELEASE_IDLE_MEMORY, decision
 * 2097). Node 24's V8 (13.6) never runs its memory reducer in a process that allocates nothing on
 * the embedder's heap (cppgc): that heap's allocation rate is then exactly 0, which V8 reads as the
 * highest rate there is (ComputeMutatorUtilizationImpl answers 0 for a speed of 0), so every tick
 * says "high alloc" and the pages the start freed (V8's page pool, 13–40 MB at 10,000 flags) stay
 * resident. A `vm.Script` is a cppgc object: compiling a one-character one now and every minute
 * keeps that rate above 0 (it decays to exactly 0 in ~110 s), and the reducer then does what it did
 * on Node 22, a memory-reducing collection ~10 s after allocation falls. Off by default: what such
 * a collection leaves costs the evaluation path 7–25 % more CPU a request (decision 2097).
 */
export function releaseMemoryWhenIdle(): void {
  // The heap is the process's: one timer however many nodes it starts (tests start several).
  if (nudging) return;
  nudging = true;
  const allocateOnTheEmbedderHeap = () => void new Script('0');
  allocateOnTheEmbedderHeap();
  setInterval(allocateOnTheEmbedderHeap, NUDGE_EVERY_MS).unref();
}

let nudging = false;

/** Well inside the ~110 s after which V8's smoothed rate of one allocation underflows to 0. */
const NUDGE_EVERY_MS = 60_000;
