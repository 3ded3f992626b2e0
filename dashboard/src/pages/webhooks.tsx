import { useState } from 'react';
import {
  type ApiError,
  type Attempt,
  api,
  type CreatedWebhook,
  type Delivery,
  enc,
  type Loaded,
  type TestReport,
  useApi,
  type Webhook,
} from '../api.ts';
import { type CreateFormProps, confirmThen, OpenButton, useForm } from '../kit/dialogs.tsx';
import { ErrorSummary, SelectField, TextField } from '../kit/field.tsx';
import { InlineForm } from '../kit/inline-form.tsx';
import { actionsColumn, ResourceTable } from '../kit/resource-table.tsx';
import { useProject } from '../project.ts';
import { CopyButton, Empty, LoadError, Loading, PageTitle, Switch, Time, toast } from '../ui.tsx';

/** Settings → Webhooks: where a project's audit events are POSTed, and how each delivery went. */
export function WebhooksPage() {
  const { project } = useProject();
  const base = `/projects/${enc(project.id)}/webhooks`;
  const webhooks = useApi<Webhook[]>(base);
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<string>();
  const [problem, setProblem] = useState<ApiError>();
  return (
    <>
      <PageTitle actions={<OpenButton label="Add webhook" open={creating} setOpen={setCreating} />}>
        Settings → Webhooks
      </PageTitle>
      <p className="muted">
        Each change to {project.name} that a webhook asks for is POSTed to its URL as JSON, signed with its
        secret (header Flagstaff-Signature), in order, and retried for 24 hours until it is answered with 2xx.
      </p>
      {secret && <NewSecret secret={secret} onDone={() => setSecret(undefined)} />}
      {creating && (
        <CreateWebhook
          base={base}
          onCreated={(created) => {
            setCreating(false);
            setSecret(created);
            webhooks.reload();
          }}
          onCancel={() => setCreating(false)}
        />
      )}
      <ErrorSummary problem={problem} />
      <WebhookList webhooks={webhooks} base={base} onProblem={setProblem} />
    </>
  );
}

/** A new webhook's signing secret, the only time it is shown, with a copy button. */
function NewSecret({ secret, onDone }: { secret: string; onDone: () => void }) {
  return (
    <section className="panel secret" aria-labelledby="webhook-secret">
      <h2 id="webhook-secret">Copy the signing secret now</h2>
      <p className="warning">
        <strong>This is the only time it is shown.</strong> Your receiver checks each delivery's
        Flagstaff-Signature with it.
      </p>
      <div className="secret-row">
        <label htmlFor="new-webhook-secret" className="visually-hidden">
          The signing secret
        </label>
        <input id="new-webhook-secret" readOnly value={secret} className="mono" spellCheck={false} />
        <CopyButton text={secret} label="Copy secret" />
      </div>
      <button type="button" className="btn primary" onClick={onDone}>
        I have stored the secret
      </button>
    </section>
  );
}

/** What the webhooks' panels share: where the webhooks are, and where a failed action's problem goes. */
interface WebhookActions {
  readonly base: string;
  readonly onProblem: (problem: ApiError | undefined) => void;
}

/** The project's webhooks, a panel each, at most one with its deliveries open. */
function WebhookList({ webhooks, ...actions }: WebhookActions & { webhooks: Loaded<Webhook[]> }) {
  const [open, setOpen] = useState<string>();
  if (webhooks.error) return <LoadError error={webhooks.error} retry={webhooks.reload} />;
  if (webhooks.loading) return <Loading what="webhooks" />;
  if (webhooks.data?.length === 0)
    return (
      <Empty title="No webhooks yet">
        <p>Add one to tell another system when flags or segments change.</p>
      </Empty>
    );
  return (webhooks.data ?? []).map((webhook) => (
    <WebhookPanel
      key={webhook.id}
      {...actions}
      webhook={webhook}
      open={open === webhook.id}
      onOpen={(opening) => setOpen(opening ? webhook.id : undefined)}
      onChanged={webhooks.reload}
    />
  ));
}
/** One webhook: where it delivers, what, its backlog; switch it off or on, test it, read its log, delete it. */
function WebhookPanel({
  webhook,
  base,
  onProblem,
  open,
  onOpen,
  onChanged,
}: WebhookActions & {
  webhook: Webhook;
  open: boolean;
  onOpen: (open: boolean) => void;
  onChanged: () => void;
}) {
  const path = `${base}/${enc(webhook.id)}`;
  const setActive = async (active: boolean) => {
    try {
      await api('PATCH', path, { active }, webhook.version);
      onChanged();
    } catch (e) {
      onProblem(e as ApiError);
    }
  };
  const remove = () => deleteWebhook(webhook, path, onChanged, onProblem);
  return (
    <section className="panel" aria-label={`Webhook ${webhook.url}`}>
      <div className="row">
        <div>
          <h2 className="mono">{webhook.url}</h2>
          <p className="muted">
            {webhook.format === 'slack' ? 'Slack messages' : 'JSON'} · Events: {webhook.events.join(', ')} ·
            added <Time at={webhook.createdAt} />
          </p>
          <Backlog backlog={webhook.backlog} />
        </div>
        <Switch checked={webhook.active} label={`Deliver to ${webhook.url}`} onChange={setActive} />
      </div>
      <div className="form-actions">
        <button type="button" className="btn" aria-expanded={open} onClick={() => onOpen(!open)}>
          {open ? 'Hide deliveries' : 'Show deliveries'}
        </button>
        <SendTest
          path={`${path}/test`}
          url={webhook.url}
          slack={webhook.format === 'slack'}
          onProblem={onProblem}
        />
        {/* The harmful action last, apart from the harmless ones. */}
        <button type="button" className="btn subtle danger-text at-end" onClick={remove}>
          Delete<span className="visually-hidden"> {webhook.url}</span>
        </button>
      </div>
      {open && <Deliveries path={`${path}/deliveries`} />}
    </section>
  );
}

/** Deletes the webhook at `path` once the person confirms it; a refusal goes to `onProblem`. */
const deleteWebhook = (
  webhook: Webhook,
  path: string,
  onDeleted: () => void,
  onProblem: (problem: ApiError) => void,
) =>
  confirmThen(
    {
      title: 'Delete this webhook?',
      body: (
        <p>
          <code>{webhook.url}</code> gets no more events, and its delivery log is deleted with it.
        </p>
      ),
      confirmLabel: 'Delete webhook',
      danger: true,
    },
    async () => {
      await api('DELETE', path);
      toast('Webhook deleted.');
      onDeleted();
    },
    onProblem,
  );

/**
 * Sends a signed test event now and says how the receiver answered, beside the button, where
 * the person is looking; the test is not a delivery, so the log below does not change.
 */
function SendTest({
  path,
  url,
  slack,
  onProblem,
}: {
  path: string;
  url: string;
  /** A Slack webhook is sent a test message, as its channel will see events. */
  slack: boolean;
  onProblem: (problem: ApiError | undefined) => void;
}) {
  const [sending, setSending] = useState(false);
  const [report, setReport] = useState<TestReport>();
  const send = async () => {
    setSending(true);
    setReport(undefined);
    onProblem(undefined);
    try {
      setReport(await api<TestReport>('POST', path));
    } catch (e) {
      onProblem(e as ApiError);
    } finally {
      setSending(false);
    }
  };
  return (
    <>
      <button type="button" className="btn" onClick={send} disabled={sending}>
        {sending ? 'Sending test…' : slack ? 'Send test message' : 'Send test event'}
        <span className="visually-hidden"> to {url}</span>
      </button>
      <output
        className={`test-report${report && !report.delivered ? ' danger-text' : ''}`}
        aria-live="polite"
      >
        {report && testWords(report)}
      </output>
    </>
  );
}

const testWords = (report: TestReport) =>
  report.delivered
    ? `Test delivered: the receiver answered ${report.statusCode} in ${report.durationMs} ms.`
    : `Test not delivered (${report.durationMs} ms): ${report.error}`;

/** What the webhook has still to deliver: a growing number, or an old oldest, means the receiver lags. */
function Backlog({ backlog }: { backlog: Webhook['backlog'] }) {
  if (backlog === undefined) return null;
  if (backlog.pending === 0) return <p className="muted">Backlog: nothing waiting.</p>;
  return (
    <p>
      Backlog: {backlog.pending} {backlog.pending === 1 ? 'event' : 'events'} waiting
      {backlog.oldestPendingAt !== null && (
        <>
          , the oldest since <Time at={backlog.oldestPendingAt} />
        </>
      )}
    </p>
  );
}

/** The form that adds a webhook; what it answers is the webhook's signing secret, shown once. */
function CreateWebhook({ base, onCreated, onCancel }: CreateFormProps<string>) {
  const form = useForm({ url: '', format: 'json', events: 'flag.*, segment.*' });
  const submit = () =>
    form.run(async () => {
      const created = await api<CreatedWebhook>('POST', base, {
        url: form.values.url,
        format: form.values.format,
        events: form.values.events
          .split(',')
          .map((e) => e.trim())
          .filter((e) => e !== ''),
      });
      onCreated(created.secret);
    });

  return (
    <InlineForm
      title="New webhook"
      className="panel"
      form={form}
      submitLabel="Add webhook"
      onSubmit={submit}
      onCancel={onCancel}
    >
      <TextField
        of={form}
        name="url"
        label="URL"
        type="url"
        hint={
          form.values.format === 'slack'
            ? 'The Slack incoming webhook URL, e.g. https://hooks.slack.com/services/….'
            : 'Where to POST, e.g. https://ci.example.com/hooks/flags.'
        }
      />
      <SelectField of={form} name="format" label="Format" hint={FORMAT_HINT} choices={FORMATS} />
      <TextField of={form} name="events" label="Events" hint={EVENTS_HINT} />
    </InlineForm>
  );
}

const FORMATS = [
  ['json', 'JSON (signed, for your own receiver)'],
  ['slack', 'Slack message (Block Kit)'],
] as const;
const FORMAT_HINT =
  'Slack: each event as a short message with a link to the dashboard; a change request with a button to review it.';

const EVENTS_HINT = 'Comma-separated: an action (flag.updated), a resource (flag.*), or * for all.';

/** The delivery log of one webhook, newest first, each with its last answer and a way to send it again. */
function Deliveries({ path }: { path: string }) {
  const deliveries = useApi<Delivery[]>(`${path}?limit=50`);
  const [problem, setProblem] = useState<ApiError>();

  const redeliver = async (delivery: Delivery) => {
    try {
      await api('POST', `${path}/${enc(delivery.id)}/redeliver`);
      toast(`${delivery.event} queued again.`);
      deliveries.reload();
    } catch (e) {
      setProblem(e as ApiError);
    }
  };

  return (
    <ResourceTable
      problem={problem}
      caption="Deliveries"
      of={deliveries}
      empty={<p className="muted">Nothing sent yet.</p>}
      columns={[
        {
          header: 'Event',
          cell: (d) => (
            <>
              <code>{d.event}</code>
              {d.redeliveryOf && <div className="muted small">redelivery</div>}
            </>
          ),
        },
        { header: 'Created', cell: (d) => <Time at={d.createdAt} /> },
        { header: 'State', cell: (d) => <DeliveryState delivery={d} /> },
        { header: 'Attempts', cell: (d) => d.attempts.length },
        { header: 'Last answer', cell: (d) => lastAnswer(d.attempts.at(-1)) },
        actionsColumn<Delivery>((d) => (
          <button type="button" className="btn subtle" onClick={() => redeliver(d)}>
            Redeliver<span className="visually-hidden"> {d.event}</span>
          </button>
        )),
      ]}
    />
  );
}

const lastAnswer = (last: Attempt | undefined) =>
  last ? (last.error ?? `${last.statusCode} in ${last.durationMs} ms`) : '—';

function DeliveryState({ delivery: d }: { delivery: Delivery }) {
  return (
    <>
      <span className={`badge ${d.state === 'delivered' ? 'active' : d.state === 'failed' ? 'revoked' : ''}`}>
        {d.state}
      </span>
      {d.nextAttemptAt && d.attempts.length > 0 && (
        <div className="muted small">
          next try <Time at={d.nextAttemptAt} />
        </div>
      )}
    </>
  );
}
