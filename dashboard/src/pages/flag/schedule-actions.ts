import type { Rollout } from '../../../../src/domain/flag.ts';
import { rolloutWords } from './setting-words.ts';

/** What a scheduled change can do from the flag page: each a PATCH /v1/flags body for one environment. */
export const SCHEDULE_ACTIONS = [
  ['on', 'Turn on'],
  ['off', 'Turn off'],
  ['serve', 'Serve a variant by default'],
  ['on-serve', 'Turn on, serving a variant by default'],
] as const;
export type ScheduleAction = (typeof SCHEDULE_ACTIONS)[number][0];

/** Whether the action needs a variant chosen. */
export const needsVariant = (action: ScheduleAction): boolean => action === 'serve' || action === 'on-serve';

/** The patch the scheduled-change API applies at its time. */
export function schedulePatch(action: ScheduleAction, variant: string): Record<string, unknown> {
  switch (action) {
    case 'on':
      return { enabled: true };
    case 'off':
      return { enabled: false };
    case 'serve':
      return { defaultVariant: variant, defaultRollout: null };
    case 'on-serve':
      return { enabled: true, defaultVariant: variant, defaultRollout: null };
  }
}

const isRollout = (value: unknown): value is Rollout =>
  typeof value === 'object' && value !== null && Array.isArray((value as Rollout).weights);

/**
 * A scheduled patch in words: the actions above by name, a default rollout alone (a release
 * plan's step) by its shares, anything else (made over the API) as its JSON.
 */
export function describeSchedulePatch(patch: Readonly<Record<string, unknown>>): string {
  const { enabled, defaultVariant, defaultRollout, ...rest } = patch;
  if (isRollout(defaultRollout) && Object.keys(patch).length === 1) {
    return `serve a rollout by default: ${rolloutWords(defaultRollout, '')}`;
  }
  const known =
    Object.keys(rest).length === 0 &&
    (defaultRollout === undefined || defaultRollout === null) &&
    (defaultVariant === undefined || typeof defaultVariant === 'string') &&
    (enabled === undefined || typeof enabled === 'boolean');
  if (!known || (enabled === undefined && defaultVariant === undefined)) return JSON.stringify(patch);
  const serve = defaultVariant === undefined ? undefined : `serve "${defaultVariant}" by default`;
  if (enabled === undefined) return serve as string;
  const turn = enabled ? 'turn on' : 'turn off';
  return serve === undefined ? turn : `${turn}, ${serve}`;
}
