import type { Segment } from '../api.ts';
import { ProjectListPicker, type ProjectListPickerProps } from './project-list-picker.tsx';

/**
 * A field that chooses one of the project's segments by searching them, however many there are
 * (docs/decisions/1844): a project may hold more than the segment list's largest page.
 */
export function SegmentField(picker: ProjectListPickerProps<Segment>) {
  return <ProjectListPicker {...picker} list="segments" noun="segment" />;
}
