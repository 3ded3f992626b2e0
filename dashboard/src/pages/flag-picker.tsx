import type { ReactNode } from 'react';
import type { FlagSummary } from '../api.ts';
import { ProjectListPicker, type ProjectListPickerProps } from './project-list-picker.tsx';

/**
 * A field that chooses one of the project's flags by searching them (docs/decisions/1842).
 * `archived: false` leaves out archived flags, in the search itself so that they take no place
 * among the few offered.
 */
export function FlagPicker({
  label = 'Flag',
  archived = true,
  ...picker
}: Omit<ProjectListPickerProps<FlagSummary>, 'label'> & { label?: ReactNode; archived?: boolean }) {
  return (
    <ProjectListPicker
      {...picker}
      list="flags"
      noun="flag"
      label={label}
      filters={archived ? {} : { archived: 'false' }}
    />
  );
}
