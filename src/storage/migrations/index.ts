import type { Migration, MigrationProvider } from 'kysely';
import { initial } from './0001-initial.ts';
import { accounts } from './0002-accounts.ts';
import { protectedEnvironmentsAndMatchAll } from './0003-protected-environments-and-match-all.ts';
import { accountVersion } from './0004-account-version.ts';
import { changeFeed } from './0005-change-feed.ts';
import { webhooks } from './0006-webhooks.ts';
import { changeSafety } from './0007-change-safety.ts';
import { flagEvaluations } from './0008-flag-evaluations.ts';
import { accountSelfService } from './0009-account-self-service.ts';
import { insightsIndexOnlyScan } from './0010-insights-index-only-scan.ts';
import { changeRequestsForEveryWrite } from './0011-change-requests-for-every-write.ts';
import { singleSignOn } from './0012-single-sign-on.ts';
import { pendingChanges } from './0013-pending-changes.ts';
import { scimGroupsAndSessionOrigin } from './0016-scim-groups-and-session-origin.ts';
import { eventsAndMetrics } from './0018-events-and-metrics.ts';
import { auditSubject } from './0019-audit-subject.ts';
import { experiments } from './0020-experiments.ts';
import { releasePlans } from './0021-release-plans.ts';
import { codeReferences } from './0022-code-references.ts';

/** Every migration, in order. Names sort in the order they run; never rename or edit a released one. */
const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001-initial': initial,
  '0002-accounts': accounts,
  '0003-protected-environments-and-match-all': protectedEnvironmentsAndMatchAll,
  '0004-account-version': accountVersion,
  '0005-change-feed': changeFeed,
  '0006-webhooks': webhooks,
  '0007-change-safety': changeSafety,
  '0008-flag-evaluations': flagEvaluations,
  '0009-account-self-service': accountSelfService,
  '0010-insights-index-only-scan': insightsIndexOnlyScan,
  '0011-change-requests-for-every-write': changeRequestsForEveryWrite,
  '0012-single-sign-on': singleSignOn,
  '0013-pending-changes': pendingChanges,
  '0016-scim-groups-and-session-origin': scimGroupsAndSessionOrigin,
  '0018-events-and-metrics': eventsAndMetrics,
  '0019-audit-subject': auditSubject,
  '0020-experiments': experiments,
  '0021-release-plans': releasePlans,
  '0022-code-references': codeReferences,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => ({ ...MIGRATIONS }),
};
