import { DESCRIPTION_HINT, type FieldSource, NAME_HINT, TextField } from '../../kit/field.tsx';
import type { FlagEditor } from './use-flag-editor.ts';
import { VariantsEditor } from './variants-editor.tsx';

/** Name, tags, description and variants: the flag's fields that are the same in every environment. */
export function SettingsSection({ editor }: { editor: FlagEditor }) {
  const { flag, draft, problem, change, mayEdit } = editor;
  const fields: FieldSource<typeof draft> = {
    values: draft,
    set: (name, value) => change((d) => ({ ...d, [name]: value })),
    problem,
  };
  return (
    <section className="panel" aria-labelledby="settings-title">
      <h2 id="settings-title">Settings</h2>
      <div className="row">
        <TextField of={fields} name="name" label="Name" hint={NAME_HINT} />
        <TextField of={fields} name="tags" label="Tags" hint="Separated by commas." />
      </div>
      <TextField of={fields} name="description" label="Description" rows={2} hint={DESCRIPTION_HINT} />
      <VariantsEditor
        type={flag.type}
        variants={draft.variants}
        onChange={(variants) => change((d) => ({ ...d, variants }))}
        problem={problem}
        readOnly={!mayEdit}
      />
    </section>
  );
}
