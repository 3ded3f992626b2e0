import type { AuditEvent } from '../domain/audit-event.ts';

// A webhook of format `slack` (issue 39): each event as a Slack Block Kit message, short enough
// to read in a channel and within Block Kit's limits, with a link to where the dashboard shows it.

/** Block Kit's limits (api.slack.com/reference/block-kit/blocks): a message, a section's text, a header's. */
export const SLACK_LIMITS = { blocks: 50, sectionText: 3000, headerText: 150, contextElements: 10 } as const;

export type SlackBlock =
  | { readonly type: 'header'; readonly text: { readonly type: 'plain_text'; readonly text: string } }
  | { readonly type: 'section'; readonly text: { readonly type: 'mrkdwn'; readonly text: string } }
  | {
      readonly type: 'context';
      readonly elements: readonly { readonly type: 'mrkdwn'; readonly text: string }[];
    }
  | {
      readonly type: 'actions';
      readonly elements: readonly {
        readonly type: 'button';
        readonly text: { readonly type: 'plain_text'; readonly text: string };
        readonly url: string;
        readonly style?: 'primary';
      }[];
    };

/** What Slack's incoming webhook takes: `text` is the notification's and the fallback's. */
export interface SlackMessage {
  readonly text: string;
  readonly blocks: readonly SlackBlock[];
}

/** Cut to `limit` characters, with an ellipsis when cut. */
const cut = (text: string, limit: number) => (text.length <= limit ? text : `${text.slice(0, limit - 1)}…`);

/** Slack's mrkdwn escapes only these three. */
const mrkdwn = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

const header = (text: string): SlackBlock => ({
  type: 'header',
  text: { type: 'plain_text', text: cut(text, SLACK_LIMITS.headerText) },
});
const section = (text: string): SlackBlock => ({
  type: 'section',
  text: { type: 'mrkdwn', text: cut(text, SLACK_LIMITS.sectionText) },
});
const context = (text: string): SlackBlock => ({
  type: 'context',
  elements: [{ type: 'mrkdwn', text: cut(text, SLACK_LIMITS.sectionText) }],
});
const button = (text: string, url: string, primary = false): SlackBlock => ({
  type: 'actions',
  elements: [
    {
      type: 'button',
      text: { type: 'plain_text', text },
      url,
      ...(primary ? { style: 'primary' as const } : {}),
    },
  ],
});

const NAMES: Readonly<Record<string, string>> = {
  flag: 'Flag',
  change_request: 'Change request',
  release: 'Release',
  experiment: 'Experiment',
  webhook: 'Webhook',
};

/** `flag.updated` → "Flag updated"; `release.rolled_back` → "Release rolled back". */
function headline(action: string): string {
  const [kind = action, verb = ''] = action.split(/\.(.*)/s);
  return `${NAMES[kind] ?? kind.replaceAll('_', ' ')} ${verb.replaceAll('_', ' ')}`.trim();
}

/** The fields of an object that differ between before and after: what an update changed, in a few words. */
function changedFields(before: unknown, after: unknown): string[] {
  if (typeof before !== 'object' || before === null || typeof after !== 'object' || after === null) return [];
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  const skip = new Set(['version', 'updatedAt', 'createdAt']);
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((key) => !skip.has(key) && JSON.stringify(a[key]) !== JSON.stringify(b[key]))
    .sort();
}

/** Where the dashboard shows what the event is about; undefined without a public URL to link from. */
function pageOf(event: AuditEvent, projectId: string, dashboard: string | undefined): string | undefined {
  if (dashboard === undefined) return undefined;
  const project = `${dashboard}/projects/${encodeURIComponent(projectId)}`;
  const { type, key, id } = event.resource;
  const subjectFlag = (event.after ?? event.before) as { flag?: string } | null;
  if (type === 'flag' && key !== null) return `${project}/flags/${encodeURIComponent(key)}`;
  if (type === 'change_request') return `${project}/change-requests?request=${encodeURIComponent(id)}`;
  if (type === 'release_plan' && subjectFlag?.flag !== undefined) {
    return `${project}/flags/${encodeURIComponent(subjectFlag.flag)}`;
  }
  if (type === 'webhook') return `${project}/settings/webhooks`;
  return `${project}/audit-log`;
}

/** One event as a Slack message: a header, what happened and who did it, a link to it. */
export function slackMessage(
  projectId: string,
  event: AuditEvent,
  dashboard: string | undefined,
): SlackMessage {
  const title = headline(event.action);
  const subject = event.resource.key ?? event.resource.id;
  const where = event.environment === undefined ? '' : ` in *${mrkdwn(event.environment)}*`;
  const lines = [`*${mrkdwn(subject)}*${where}, by ${mrkdwn(event.actor.name)}`];
  const changed = changedFields(event.before, event.after);
  if (event.action.endsWith('.updated') && changed.length > 0) {
    lines.push(`Changed: ${changed.map((field) => `\`${mrkdwn(field)}\``).join(', ')}`);
  }
  const page = pageOf(event, projectId, dashboard);
  const isRequest = event.action === 'change_request.created';
  if (isRequest) lines.push('Waiting for approval before it changes anything.');
  const blocks: SlackBlock[] = [header(title), section(lines.join('\n'))];
  if (page !== undefined)
    blocks.push(button(isRequest ? 'Review and approve' : 'Open in Flagstaff', page, isRequest));
  else blocks.push(context('Set FLAGSTAFF_PUBLIC_URL for links to the dashboard.'));
  blocks.push(context(`${mrkdwn(event.action)} · ${event.at}`));
  return { text: cut(`${title}: ${subject}`, SLACK_LIMITS.sectionText), blocks };
}

/** The body POSTed to a Slack webhook for the stored JSON body of an event (`webhookBody`). */
export function slackBody(jsonBody: string, dashboard: string | undefined): string {
  const { projectId, event } = JSON.parse(jsonBody) as { projectId: string; event: AuditEvent };
  return JSON.stringify(slackMessage(projectId, event, dashboard));
}
