import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_RATE_LIMITS } from '../../src/access/budgets.ts';
import { loadConfig } from '../../src/config.ts';
import { serve } from '../../src/main.ts';

// The server of the flags-as-code benchmark, in a process of its own as `npm start` runs it: a
// SQLite file, the default rate limits (the key's 50 management requests a second), and the
// admin key the parent names (FLAGSTAFF_ADMIN_KEY). It hands its URL to the parent and runs until killed.

const folder = mkdtempSync(join(tmpdir(), 'flagstaff-fac-'));
const app = await serve(
  loadConfig({
    ...process.env,
    FLAGSTAFF_DATABASE_URL: `sqlite:${join(folder, 'bench.db')}`,
    FLAGSTAFF_HOST: '127.0.0.1',
    FLAGSTAFF_PORT: '0',
    FLAGSTAFF_LOG_LEVEL: 'warn',
    // The defaults, whatever the environment says: the figures are those a user meets.
    FLAGSTAFF_RATE_LIMIT_MANAGEMENT: String(DEFAULT_RATE_LIMITS.management),
    FLAGSTAFF_RATE_LIMIT_EVALUATION: String(DEFAULT_RATE_LIMITS.evaluation),
  }),
);
process.on('exit', () => rmSync(folder, { recursive: true, force: true }));
process.on('SIGTERM', async () => {
  await app.close();
  process.exit(0);
});
const address = app.server.address();
if (address === null || typeof address === 'string') throw new Error('no TCP address');
process.send?.({ type: 'ready', url: `http://127.0.0.1:${address.port}` });
