import type { Outcome } from './apply.ts';
import { changeRequestsLink } from './apply.ts';
import type { FieldChange, PlannedResource, ProjectPlan } from './plan.ts';

// How plan and apply read to a person: one line per resource, then one per field.

const MAX_VALUE = 200;

function show(value: unknown): string {
  if (value === undefined) return '(none)';
  const text = JSON.stringify(value);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
}

function changeLine(change: FieldChange): string {
  if (!('before' in change)) return `      ${change.field}: ${show(change.after)}`;
  if (!('after' in change)) return `      ${change.field}: ${show(change.before)} → (removed)`;
  return `      ${change.field}: ${show(change.before)} → ${show(change.after)}`;
}

const SIGNS: Record<PlannedResource['action'], string> = {
  create: '+',
  update: '~',
  delete: '-',
  unmanaged: '?',
  'awaiting-approval': '…',
};

/** The plan as text, and its last line: what it would do in numbers. */
export function renderPlan(plans: readonly ProjectPlan[], server: string): string {
  const lines: string[] = [];
  const count = { create: 0, update: 0, delete: 0, unmanaged: 0, 'awaiting-approval': 0 };
  for (const plan of plans) {
    lines.push(`Project ${plan.project}:`);
    if (plan.resources.length === 0) lines.push('  no changes');
    for (const r of plan.resources) {
      count[r.action] += 1;
      const head = `  ${SIGNS[r.action]} ${r.kind} ${r.key}`;
      if (r.action === 'unmanaged') {
        lines.push(`${head}: unmanaged (no file names it; --prune would delete it)`);
      } else if (r.action === 'awaiting-approval') {
        lines.push(
          `${head} in ${r.environment}: awaiting approval (change request ${r.changeRequest}: ${changeRequestsLink(server, plan.project)})`,
        );
      } else {
        lines.push(`${head}${r.version === undefined ? '' : ` (version ${r.version})`}`);
        for (const change of r.changes) lines.push(changeLine(change));
        for (const w of r.writes) {
          if (w.environment !== undefined)
            lines.push(
              `      (${w.environment} requires approvals: a change request unless the key is an admin's)`,
            );
        }
      }
    }
  }
  const waiting = count['awaiting-approval'] > 0 ? `; ${count['awaiting-approval']} awaiting approval` : '';
  lines.push(
    `Plan: ${count.create} to create, ${count.update} to update, ${count.delete} to delete; ${count.unmanaged} unmanaged${waiting}.`,
  );
  return `${lines.join('\n')}\n`;
}

const VERB = { create: 'created', update: 'updated', delete: 'deleted' } as Record<string, string>;

/** One line per outcome of apply. */
export function renderOutcome(outcome: Outcome): string {
  const { resource } = outcome;
  const name = `${resource.kind} ${resource.key}`;
  switch (outcome.kind) {
    case 'done':
      return `${VERB[resource.action] ?? 'changed'} ${name}`;
    case 'change-request':
      return `change request ${outcome.id} for ${name} in ${outcome.environment}: needs ${outcome.requiredApprovals} approval${outcome.requiredApprovals === 1 ? '' : 's'}: ${outcome.link}`;
    case 'failed':
      return `FAILED ${name}: ${outcome.reason}`;
  }
}
