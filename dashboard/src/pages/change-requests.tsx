import { useCallback, useEffect, useId, useState } from 'react';
import { CHANGE_REQUEST_STATUSES } from '../../../src/domain/change-request.ts';
import { type ApiError, api, type ChangeRequest, enc, type Flag, useApi } from '../api.ts';
import { counted } from '../kit/counted.ts';
import { useSubmission } from '../kit/dialogs.tsx';
import { ErrorSummary, Field, Options } from '../kit/field.tsx';
import { useEnvironmentNames, useProject } from '../project.ts';
import { Link } from '../router.tsx';
import { can, useSession } from '../session.ts';
import { Empty, LoadError, Loading, PageTitle, Time, toast } from '../ui.tsx';
import { ChangeDiff } from './flag/change-diff.tsx';
import {
  askedWords,
  CONFLICT_HELP,
  experimentOf,
  isWaiting,
  requestActions,
  type Verb,
} from './request-words.ts';

const DONE: Readonly<Record<Verb, string>> = {
  approve: 'Approved',
  reject: 'Rejected',
  withdraw: 'Withdrawn',
  apply: 'Applied',
};

/** The statuses still waiting for a decision, as this server knows them (open, and conflicted). */
export const WAITING = CHANGE_REQUEST_STATUSES.filter((s) => isWaiting({ status: s }));

/**
 * The project's change requests with any of `statuses` (one call each, as the API filters by one),
 * newest first; `flagId` narrows them to one flag.
 */
export function useChangeRequests(projectId: string, statuses: readonly string[], flagId?: string) {
  const [state, setState] = useState<{ data?: ChangeRequest[]; error?: ApiError }>({});
  const [generation, setGeneration] = useState(0);
  const query = statuses.join(',');
  // biome-ignore lint/correctness/useExhaustiveDependencies: generation is the reload signal
  useEffect(() => {
    let current = true;
    setState({});
    const base = `/projects/${enc(projectId)}/change-requests?limit=100${flagId ? `&flagId=${enc(flagId)}` : ''}`;
    const wanted = query === '' ? [''] : query.split(',');
    Promise.all(wanted.map((s) => api<ChangeRequest[]>('GET', s ? `${base}&status=${s}` : base))).then(
      (lists) =>
        current && setState({ data: lists.flat().sort((a, b) => b.createdAt.localeCompare(a.createdAt)) }),
      (error: ApiError) => current && setState({ error }),
    );
    return () => {
      current = false;
    };
  }, [projectId, query, flagId, generation]);
  return { ...state, reload: useCallback(() => setGeneration((g) => g + 1), []) };
}

const STATUS_LABEL: Readonly<Record<string, string>> = {
  open: 'open',
  applied: 'applied',
  rejected: 'rejected',
  withdrawn: 'withdrawn',
  conflicted: 'conflicted',
};

/** One change request: who asked, what would change, its approvals, and what you may do with it. */
export function ChangeRequestCard({
  request,
  flag,
  flagKey,
  onDecided,
}: {
  request: ChangeRequest;
  flag: Flag | undefined;
  flagKey?: string | undefined;
  onDecided: (request: ChangeRequest) => void;
}) {
  const helpId = useId();
  const conflicted = request.status === 'conflicted';
  return (
    <article
      className={`card request${conflicted ? ' conflicted' : ''}`}
      aria-label={`Change request by ${request.author.name}`}
    >
      <RequestHead request={request} flagKey={flagKey} />
      <p className="muted small">
        <Time at={request.createdAt} /> · {request.approvals.length} of{' '}
        {counted(request.requiredApprovals, 'approval')}
        {request.approvals.length > 0 && <> ({request.approvals.map((a) => a.by.name).join(', ')})</>}
      </p>
      {request.comment && <p className="request-comment">{request.comment}</p>}
      {conflicted && (
        <div className="notice conflict" id={helpId}>
          <p>
            <strong>Conflicted.</strong> {request.conflict ?? 'The fields it changes were changed since.'}
          </p>
          <p className="small">{CONFLICT_HELP}</p>
        </div>
      )}
      <ChangeDiff request={request} flag={flag} />
      {request.failure && <p className="error">{request.failure}</p>}
      <RequestActions request={request} helpId={helpId} onDecided={onDecided} />
    </article>
  );
}

/** Who asks to do what to which flag (or experiment) where, and the request's status. */
function RequestHead({ request, flagKey }: { request: ChangeRequest; flagKey: string | undefined }) {
  const { project } = useProject();
  const nameOf = useEnvironmentNames();
  const reached = request.environments.length > 0 ? request.environments : [request.environment];
  const experiment = experimentOf(request);
  return (
    <div className="request-head">
      <p className="request-title">
        <strong>{request.author.name}</strong> asks to {askedWords(request)}{' '}
        {experiment !== undefined ? (
          <Link to={`/projects/${enc(project.key)}/experiments/${enc(experiment)}`}>{experiment}</Link>
        ) : flagKey ? (
          <Link to={`/projects/${enc(project.key)}/flags/${enc(flagKey)}`}>{flagKey}</Link>
        ) : request.flagId ? (
          'this flag'
        ) : (
          'the project'
        )}{' '}
        in <strong>{reached.map(nameOf).join(', ')}</strong>
      </p>
      <span className={`badge status-${request.status}`}>
        {STATUS_LABEL[request.status] ?? request.status}
      </span>
    </div>
  );
}

/** What you may do with the request (approve, apply, withdraw…), and what the API said to the last try. */
function RequestActions({
  request,
  helpId,
  onDecided,
}: {
  request: ChangeRequest;
  /** The id of what says why a disabled action is. */
  helpId: string;
  onDecided: (request: ChangeRequest) => void;
}) {
  const { project } = useProject();
  const { me } = useSession();
  const { problem, busy, run } = useSubmission();
  const actions = requestActions(request, {
    mine: me.actor.type === request.author.type && me.actor.id === request.author.id,
    approvedByMe: request.approvals.some((a) => a.by.type === me.actor.type && a.by.id === me.actor.id),
    editor: can(me, 'editor', project),
    admin: can(me, 'admin', project),
  });
  const act = (verb: Verb) =>
    run(async () => {
      const next = await api<ChangeRequest>('POST', `/change-requests/${enc(request.id)}/${verb}`, {});
      toast(next.status === 'applied' ? 'Applied.' : `${DONE[verb]}.`);
      onDecided(next);
    });
  return (
    <>
      <ErrorSummary problem={problem} />
      {actions.length > 0 && (
        <div className="actions">
          {actions.map((action) => (
            <button
              key={action.verb}
              type="button"
              className={`btn${action.primary ? ' primary' : ''}`}
              disabled={busy || action.disabledBecause !== undefined}
              aria-describedby={action.disabledBecause ? helpId : undefined}
              onClick={() => act(action.verb)}
            >
              {action.label}
            </button>
          ))}
        </div>
      )}
    </>
  );
}

/** The project's change requests, those waiting for a decision first by default, each with what it would change. */
export function ChangeRequestsPage() {
  const { project } = useProject();
  const [status, setStatus] = useState('waiting');
  const requests = useChangeRequests(
    project.id,
    status === 'waiting' ? WAITING : status === '' ? [] : [status],
  );
  return (
    <>
      <PageTitle>Change requests</PageTitle>
      <p className="muted">
        Changes to environments that require approvals wait here until others approve them. A request whose
        fields were changed since is conflicted: it can no longer be approved or applied.
      </p>
      <div className="filters">
        <Field label="Show" path="/status">
          {(props) => (
            <select {...props} value={status} onChange={(e) => setStatus(e.target.value)}>
              <Options
                choices={[
                  ['waiting', 'Waiting for a decision'],
                  ...CHANGE_REQUEST_STATUSES.map((s) => [s, `${s[0]?.toUpperCase()}${s.slice(1)}`] as const),
                  ['', 'All'],
                ]}
              />
            </select>
          )}
        </Field>
      </div>
      {requests.error && <LoadError error={requests.error} retry={requests.reload} />}
      {!requests.error && !requests.data && <Loading what="change requests" />}
      {requests.data?.length === 0 && (
        <Empty title="No change requests">
          {status === 'waiting' ? 'Nothing waits for a decision.' : 'None with this status.'}
        </Empty>
      )}
      <div className="requests">
        {requests.data?.map((request) => (
          <FlagOfRequest key={request.id} request={request} onDecided={requests.reload} />
        ))}
      </div>
    </>
  );
}

/**
 * A request with its flag, read by the id the request names (the flag path takes an id too): the
 * card links to it by key, and a request without recorded changes shows what is there now. Only
 * the flags of the requests shown are read, however many flags the project has.
 */
function FlagOfRequest({ request, onDecided }: { request: ChangeRequest; onDecided: () => void }) {
  const { project } = useProject();
  const flag = useApi<Flag>(
    request.flagId ? `/projects/${enc(project.id)}/flags/${enc(request.flagId)}` : null,
  );
  return (
    <ChangeRequestCard request={request} flag={flag.data} flagKey={flag.data?.key} onDecided={onDecided} />
  );
}
