import { expect, it } from 'vitest';
import type { LegacySyncCredentials } from '../../src/access/api-key-authentication.ts';
import { ServerSecret } from '../../src/domain/server-secret.ts';
import { composeNode } from '../../src/main.ts';
import { deriveSyncCredential } from '../../src/plane/sync-credential.ts';
import { hashSecret } from '../../src/services/core/secrets.ts';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import { testDatabases } from '../support/database.ts';
import { createKey } from './support.ts';

// FLAGSTAFF_LEGACY_SYNC_CREDENTIALS_UNTIL (decision 1880): an opt-in window in which flagd
// providers still on a selector of the old derivation keep syncing while they are moved over.

const [sqlite] = testDatabases();
const SCOPE = 'default/production';

async function oldCredentialAccepted(legacySyncCredentials?: LegacySyncCredentials): Promise<boolean> {
  const opened = await sqlite?.open();
  if (opened === undefined) throw new Error('no SQLite test database');
  try {
    await bootstrap(opened.store, 'fsk_legacy-window-admin-key-0123456789abcdef');
    const project = (await opened.store.listProjects({ limit: 1 })).items[0] as { id: string };
    const serverSecret = ServerSecret.fromText(ServerSecret.generateText());
    const { services, admission } = composeNode(opened.store, {
      serverSecret,
      admission: { legacySyncCredentials },
    });
    const key = await createKey(services, project.id, 'evaluator');
    // What the selector of a provider configured before the upgrade holds.
    const old = deriveSyncCredential(key.id, hashSecret(key.secret), SCOPE);
    return (await admission.keys.syncKey(old, SCOPE)) !== undefined;
  } finally {
    await opened.close();
  }
}

it('refuses the old derivation by default', async () => {
  expect(await oldCredentialAccepted()).toBe(false);
});

it('takes it while the window is open, telling whose key it was, and refuses it once closed', async () => {
  const used: string[] = [];
  const open = { until: Date.now() + 3_600_000, used: (keyId: string) => used.push(keyId) };
  expect(await oldCredentialAccepted(open)).toBe(true);
  expect(used).toHaveLength(1);
  expect(used[0]).toMatch(/^key_/);
  const closed = { until: Date.now() - 1, used: (keyId: string) => used.push(keyId) };
  expect(await oldCredentialAccepted(closed)).toBe(false);
  expect(used).toHaveLength(1);
});
