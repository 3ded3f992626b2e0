import type { ReactNode } from 'react';
import { enc, useApi } from '../api.ts';
import { useProject } from '../project.ts';
import { Arrived, type SavedProps } from '../ui.tsx';

/**
 * One item of the project's `collection` ("flags", "segments") by its key, as every dashboard URL
 * names items: loaded, said so while it loads or why it could not, then shown by `children`, an
 * editor that tells the page when it saved the item or must load it again.
 */
export function ItemByKey<T>({
  collection,
  itemKey,
  what,
  children,
}: {
  collection: string;
  itemKey: string;
  /** The item in words while it loads: "flag". */
  what: string;
  children: (item: T, saved: SavedProps<T>) => ReactNode;
}) {
  const { project } = useProject();
  const item = useApi<T>(`/projects/${enc(project.id)}/${collection}/${enc(itemKey)}`);
  return (
    <Arrived loaded={item} what={what}>
      {children}
    </Arrived>
  );
}
