import type { ReactNode } from 'react';
import { OpenButton } from '../kit/dialogs.tsx';
import { useProject } from '../project.ts';
import { can, useSession } from '../session.ts';
import { PageTitle } from '../ui.tsx';

/**
 * The title of a list of a project's resources; those who may edit the project (editors and up)
 * see its button that opens the page's create form ("New segment").
 */
export function ListPageTitle({
  children,
  newLabel,
  creating,
  setCreating,
}: {
  children: ReactNode;
  newLabel: string;
  creating: boolean;
  setCreating: (creating: boolean) => void;
}) {
  const { project } = useProject();
  const { me } = useSession();
  return (
    <PageTitle
      actions={
        can(me, 'editor', project) && <OpenButton label={newLabel} open={creating} setOpen={setCreating} />
      }
    >
      {children}
    </PageTitle>
  );
}
