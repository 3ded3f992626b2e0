import { isDatabaseUnavailable } from '../domain/database-unavailable.ts';
import { backoffMs } from './change-feed/change-feed.ts';

/**
 * Runs `work` until it gets past an unreachable database, waiting with backoff and logging
 * each failed attempt; any other error is thrown at once (a bad migration must stop the start).
 */
export async function retryUntilReachable<T>(
  log: { warn(details: object, message: string): void },
  work: () => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      const retryInMs = backoffMs(attempt);
      log.warn({ err: error, attempt: attempt + 1, retryInMs }, 'database unreachable at start; retrying');
      await new Promise((resolve) => setTimeout(resolve, retryInMs));
    }
  }
}
