// How Flagstaff's Node runs, whichever way it is started: bin/flagstaff.js applies these, and the
// benchmarks start their servers with them (bench/child.ts). Plain JavaScript that Node 18 can
// parse (bin/flagstaff.js imports it before it knows which Node it runs on).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// V8 flags every start path runs with, however Flagstaff is started (`npm start`,
// `npx flagstaff serve`, `node bin/flagstaff.js`): V8 sizes the young generation from the
// machine's memory, up to 128 MB of semi-spaces on a large machine, which was most of a
// server's RSS (docs/performance.md, issue 10). A flag the operator set already (on the
// command line or in NODE_OPTIONS) is left as they set it. 4 MB rather than the 16 chosen first:
// the young generation's pages stay resident once grown, 22 MB of a 10,000-flag node's RSS, and
// the evaluation path allocates too little for the smaller one to cost it anything measurable
// (decision 2081, docs/performance.md).
export const V8_FLAGS = ['--max-semi-space-size=4'];

// glibc gives each thread that allocates an arena of its own, up to 8 per core, and memory freed
// into one is seldom handed back: a node that had imported 10,000 flags kept ~100 MB more than a
// fresh one (docs/performance.md, issue 40). Two arenas are what the thread pool needs. Left as
// the operator set it.
export const MALLOC_ARENAS = '2';

// Node strips the types of Flagstaff's TypeScript as it loads each file: its stripper (a
// WebAssembly build of swc) and the compiled code then stay in memory, ~18 MB of an idle node's
// RSS. Node's compile cache keeps the stripped and compiled code on disk: from the second start
// on, neither the stripper nor the compiler runs for a file that has not changed. Beside the
// installed packages, written by whoever installed them; where that is not writable (a
// read-only image), Flagstaff starts as it would without it (decision 2081).
export const COMPILE_CACHE = join(
  dirname(dirname(fileURLToPath(import.meta.url))),
  'node_modules',
  '.cache',
  'flagstaff',
);
