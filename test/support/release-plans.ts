// The release-plan bodies the release suites send: every plan rolls the flag's `new` variant out
// over milestones, so a suite names only its steps and the fields (guards, interval) it tests.

/** One milestone: its name, the percentage of units served the treatment, and how long it holds. */
export type MilestoneStep = readonly [name: string, rollout: number, hold: string];

/** The milestones of a plan or template as the API takes them, one per `[name, rollout, hold]` step. */
export function milestones(...steps: MilestoneStep[]) {
  return steps.map(([name, rollout, hold]) => ({ name, rollout, hold }));
}

/** A release-plan body rolling variant `new` out through `steps`, with the other `fields` it sets. */
export function releasePlanBody(steps: MilestoneStep[], fields: Record<string, unknown> = {}) {
  return { treatment: 'new', milestones: milestones(...steps), ...fields };
}

/** A guard that rolls back when the `purchase` metric of the treatment reads worse than the control's. */
export const PURCHASES_GUARD = { kind: 'metric', name: 'purchases', metric: 'purchase' };

/** The flag every release suite rolls out: `checkout`, serving `old` (false) until `new` (true) takes over. */
export const RELEASED_FLAG = {
  key: 'checkout',
  variants: [
    { key: 'old', value: false },
    { key: 'new', value: true },
  ],
};
