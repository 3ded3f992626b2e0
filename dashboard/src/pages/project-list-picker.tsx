import type { ReactNode } from 'react';
import { type ApiError, api, enc } from '../api.ts';
import { useProject } from '../project.ts';
import { ListPicker, OFFERED } from './list-picker.tsx';

/** What a project list's items have that a choice of one of them shows. */
interface Keyed {
  readonly key: string;
  readonly name: string;
}

/** What a field that chooses one of a project's flags or segments is given by the page it is on. */
export interface ProjectListPickerProps<T> {
  label: ReactNode;
  /** Where the API's errors for the field point; also its id. */
  path: string;
  problem?: ApiError | undefined;
  /** The chosen item's key ('' for none). */
  value: string;
  onChoose: (item: T) => void;
  /** Keys not to offer. */
  excluding?: readonly string[];
  className?: string;
  disabled?: boolean;
}

/**
 * A field that chooses one item of a project's list (`list`: flags, segments), however long it is:
 * typing searches the items' keys and names through the list's `?q=`, a few at a time
 * (docs/decisions/1842, 1844). `filters` are more of the list's parameters, in the search itself
 * so that the items they leave out take no place among the few; `excluding` keys are left out of
 * the page, which asks for as many more. A choice reads "Name (key)".
 */
export function ProjectListPicker<T extends Keyed>({
  list,
  noun,
  filters = {},
  excluding = [],
  ...shown
}: ProjectListPickerProps<T> & {
  list: 'flags' | 'segments';
  /** One item, in words: "flag". */
  noun: string;
  filters?: Readonly<Record<string, string>>;
}) {
  const { project } = useProject();
  const search = async (text: string) => {
    const query = new URLSearchParams({ ...filters, limit: String(OFFERED + excluding.length) });
    if (text) query.set('q', text);
    const items = await api<T[]>('GET', `/projects/${enc(project.id)}/${list}?${query}`);
    return items.filter((item) => !excluding.includes(item.key)).slice(0, OFFERED);
  };
  return (
    <ListPicker
      {...shown}
      search={search}
      textOf={(item) => item.key}
      show={(item) => `${item.name} (${item.key})`}
      noun={noun}
    />
  );
}
