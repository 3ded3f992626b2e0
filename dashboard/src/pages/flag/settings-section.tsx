import { Field } from '../../kit/field.tsx';
import type { FlagEditor } from './use-flag-editor.ts';
import { VariantsEditor } from './variants-editor.tsx';

/** Name, tags, description and variants: the flag's fields that are the same in every environment. */
export function SettingsSection({ editor }: { editor: FlagEditor }) {
  const { flag, draft, problem, change, mayEdit } = editor;
  return (
    <section className="panel" aria-labelledby="settings-title">
      <h2 id="settings-title">Settings</h2>
      <div className="row">
        <Field label="Name" path="/name" problem={problem}>
          {(props) => (
            <input
              {...props}
              value={draft.name}
              onChange={(e) => change((d) => ({ ...d, name: e.target.value }))}
            />
          )}
        </Field>
        <Field label="Tags" path="/tags" problem={problem} hint="Separated by commas.">
          {(props) => (
            <input
              {...props}
              value={draft.tags}
              onChange={(e) => change((d) => ({ ...d, tags: e.target.value }))}
            />
          )}
        </Field>
      </div>
      <Field label="Description" path="/description" problem={problem}>
        {(props) => (
          <textarea
            {...props}
            rows={2}
            value={draft.description}
            onChange={(e) => change((d) => ({ ...d, description: e.target.value }))}
          />
        )}
      </Field>
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
