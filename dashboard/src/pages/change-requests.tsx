import { useState } from 'react';
import { type ApiError, api, type ChangeRequest, enc, type Flag, useApi } from '../api.ts';
import { ErrorSummary } from '../kit/field.tsx';
import { useProject } from '../project.ts';
import { Link } from '../router.tsx';
import { can, useSession } from '../session.ts';
import { Empty, LoadError, Loading, PageTitle, Time, toast } from '../ui.tsx';
import { ChangeDiff } from './flag/change-diff.tsx';

type Verb = 'approve' | 'reject' | 'withdraw' | 'apply';
const DONE: Readonly<Record<Verb, string>> = {
  approve: 'Approved',
  reject: 'Rejected',
  withdraw: 'Withdrawn',
  apply: 'Applied',
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
  const { project, environments } = useProject();
  const { me } = useSession();
  const [problem, setProblem] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const mine = me.actor.type === request.author.type && me.actor.id === request.author.id;
  const approvedByMe = request.approvals.some((a) => a.by.type === me.actor.type && a.by.id === me.actor.id);
  const editor = can(me, 'editor', project);
  const admin = can(me, 'admin', project);
  const complete = request.approvals.length >= request.requiredApprovals;
  const act = async (verb: Verb) => {
    setBusy(true);
    setProblem(undefined);
    try {
      const next = await api<ChangeRequest>('POST', `/change-requests/${enc(request.id)}/${verb}`, {});
      toast(next.status === 'applied' ? 'Applied.' : `${DONE[verb]}.`);
      onDecided(next);
    } catch (error) {
      setProblem(error as ApiError);
    } finally {
      setBusy(false);
    }
  };
  const environmentName =
    environments.find((e) => e.key === request.environment)?.name ?? request.environment;
  return (
    <article className="card" aria-label={`Change request by ${request.author.name}`}>
      <p>
        <strong>{request.author.name}</strong> asks to change{' '}
        {flagKey ? (
          <Link to={`/projects/${enc(project.key)}/flags/${enc(flagKey)}`}>{flagKey}</Link>
        ) : (
          'this flag'
        )}{' '}
        in <strong>{environmentName}</strong> · <Time at={request.createdAt} /> · {request.status} ·{' '}
        {request.approvals.length} of {request.requiredApprovals} approvals
        {request.approvals.length > 0 && <> ({request.approvals.map((a) => a.by.name).join(', ')})</>}
      </p>
      <ChangeDiff flag={flag} environment={request.environment} patch={request.patch} />
      {request.failure && <p className="error">{request.failure}</p>}
      <ErrorSummary problem={problem} />
      {request.status === 'open' && (
        <div className="actions">
          {editor && !mine && !approvedByMe && (
            <button type="button" className="primary" disabled={busy} onClick={() => act('approve')}>
              Approve
            </button>
          )}
          {editor && !mine && (
            <button type="button" disabled={busy} onClick={() => act('reject')}>
              Reject
            </button>
          )}
          {(mine || admin) && (
            <button type="button" disabled={busy} onClick={() => act('withdraw')}>
              Withdraw
            </button>
          )}
          {(admin || (editor && complete)) && (
            <button type="button" disabled={busy} onClick={() => act('apply')}>
              {complete ? 'Apply' : 'Apply without approvals (admin)'}
            </button>
          )}
        </div>
      )}
    </article>
  );
}

/** The project's change requests, open ones first by default, each with what it would change. */
export function ChangeRequestsPage() {
  const { project } = useProject();
  const [status, setStatus] = useState('open');
  const requests = useApi<ChangeRequest[]>(
    `/projects/${enc(project.id)}/change-requests?limit=100${status ? `&status=${status}` : ''}`,
  );
  const flags = useApi<{ id: string; key: string }[]>(`/projects/${enc(project.id)}/flags?limit=1000`);
  const keyOf = (id: string) => flags.data?.find((f) => f.id === id)?.key;
  return (
    <>
      <PageTitle>Change requests</PageTitle>
      <label>
        Status{' '}
        <select value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="open">Open</option>
          <option value="applied">Applied</option>
          <option value="rejected">Rejected</option>
          <option value="withdrawn">Withdrawn</option>
          <option value="">All</option>
        </select>
      </label>
      {requests.error && <LoadError error={requests.error} retry={requests.reload} />}
      {requests.loading && <Loading what="change requests" />}
      {requests.data?.length === 0 && (
        <Empty title="No change requests">
          Changes to environments that require approvals wait here for others to approve them.
        </Empty>
      )}
      {requests.data?.map((request) => (
        <FlagOfRequest
          key={request.id}
          request={request}
          flagKey={keyOf(request.flagId ?? '')}
          onDecided={requests.reload}
        />
      ))}
    </>
  );
}

/** A request with its flag loaded, so the diff can show what is there now. */
function FlagOfRequest({
  request,
  flagKey,
  onDecided,
}: {
  request: ChangeRequest;
  flagKey: string | undefined;
  onDecided: () => void;
}) {
  const { project } = useProject();
  const flag = useApi<Flag>(flagKey ? `/projects/${enc(project.id)}/flags/${enc(flagKey)}` : null);
  return <ChangeRequestCard request={request} flag={flag.data} flagKey={flagKey} onDecided={onDecided} />;
}
