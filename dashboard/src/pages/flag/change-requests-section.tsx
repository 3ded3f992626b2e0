import { api, type ChangeRequest, enc, type Flag, useApi } from '../../api.ts';
import { useProject } from '../../project.ts';
import { ChangeRequestCard } from '../change-requests.tsx';
import { type FlagEditor, useReloadOnSave } from './use-flag-editor.ts';

/** The flag's open change requests (docs/product.md §10), with what each would change; reloaded after every save. */
export function ChangeRequestsSection({ editor }: { editor: FlagEditor }) {
  const { project } = useProject();
  const { flag, generation } = editor;
  const requests = useApi<ChangeRequest[]>(
    `/projects/${enc(project.id)}/change-requests?status=open&flagId=${enc(flag.id)}`,
  );
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
      {requests.data.map((request) => (
        <ChangeRequestCard key={request.id} request={request} flag={flag} onDecided={decided} />
      ))}
    </section>
  );
}
