import { type Clock, systemClock } from '../../domain/clock.ts';
import type { StoreRoles } from '../../storage/store.ts';
import type { FlagService } from '../flags/flag-service.ts';

/**
 * What the service of pending flag patches (scheduled changes) stands on: the
 * store, the flag service that writes the patch in the end, and the clock.
 */
export abstract class PendingPatchService {
  protected readonly store: StoreRoles;
  protected readonly flags: FlagService;
  protected readonly clock: () => number;

  constructor(store: StoreRoles, flags: FlagService, clock: Clock = systemClock) {
    this.store = store;
    this.flags = flags;
    this.clock = clock;
  }
}
