import cluster, { type Worker } from 'node:cluster';
import { serveWorkerLeases } from '../access/worker-leases.ts';

/** A worker that dies this soon after starting is not restarted again at once: it would only die again. */
const RESTART_DELAY_MS = 1_000;

/**
 * FLAGSTAFF_WORKERS=N (decision 1986): this process becomes node:cluster's primary, and N workers,
 * each a whole node (or edge) with its own memory, share the port: the primary hands them
 * connections in turn. The first starts alone, the others once it listens. A worker that dies is started again under the same index; SIGTERM and
 * SIGINT go to every worker, and the primary ends once they have.
 */
export function runWorkers(count: number, write: (line: string) => void): Promise<number> {
  let stopping = false;
  const start = (index: number): Worker => {
    // The primary's V8 flags carry over (execArgv): a worker must not re-execute itself, or it loses its channel.
    const worker = cluster.fork({ FLAGSTAFF_WORKER_INDEX: String(index), FLAGSTAFF_V8_FLAGS: '1' });
    worker.once('exit', (code, signal) => {
      if (stopping) return;
      write(`flagstaff: worker ${index} exited (${signal ?? code}); starting it again\n`);
      setTimeout(() => {
        if (!stopping) start(index);
      }, RESTART_DELAY_MS);
    });
    return worker;
  };
  // The first worker migrates and bootstraps alone (SQLite has no start lock across processes);
  // the others start once it listens.
  // The workers' rate-limit budgets are one, held here (decision 1988).
  serveWorkerLeases();
  start(0).once('listening', () => {
    for (let index = 1; index < count && !stopping; index++) start(index);
  });
  return new Promise((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        stopping = true;
        const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
        let left = workers.length;
        if (left === 0) resolve(0);
        for (const worker of workers) {
          worker.once('exit', () => {
            if (--left === 0) resolve(0);
          });
          worker.process.kill(signal);
        }
      });
    }
  });
}
