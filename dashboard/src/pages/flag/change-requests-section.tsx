import { api, type ChangeRequest, enc, type Flag } from '../../api.ts';
import { useProject } from '../../project.ts';
import { ChangeRequestCard, useChangeRequests, WAITING } from '../change-requests.tsx';
import { type FlagEditor, useReloadOnSave } from './use-flag-editor.ts';

/**
 * The flag's change requests that wait for a decision (open or conflicted, decision 1003), with
 * what each would change; reloaded after every save.
 */
export function ChangeRequestsSection({ editor }: { editor: FlagEditor }) {
  const { project } = useProject();
  const { flag, generation } = editor;
  const requests = useChangeRequests(project.id, WAITING, flag.id);
  const { reload } = requests;
  useReloadOnSave(generation, reload);
  if (!requests.data || requests.data.length === 0) return null;
  const decided = async (request: ChangeRequest) => {
    reload();
    if (request.status === 'applied') {
      editor.saved(await api<Flag>('GET', `/projects/${enc(project.id)}/flags/${enc(flag.key)}`));
    }
  };
  return (
    <section className="panel" aria-labelledby="requests-title">
      <h2 id="requests-title">Pending change requests</h2>
      <div className="requests">
        {requests.data.map((request) => (
          <ChangeRequestCard key={request.id} request={request} flag={flag} onDecided={decided} />
        ))}
      </div>
    </section>
  );
}
