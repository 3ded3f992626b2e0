import type { Flag } from '../../api.ts';
import { ItemByKey } from '../../kit/item-by-key.tsx';
import { SaveBar } from '../../kit/save-bar.tsx';
import type { SavedProps } from '../../ui.tsx';
import { ChangeRequestsSection } from './change-requests-section.tsx';
import { CodeReferencesSection, useCodeReferences } from './code-references-section.tsx';
import { EnvironmentCompareSection } from './environment-compare-section.tsx';
import { FlagHeader } from './flag-header.tsx';
import { HistorySection } from './history-section.tsx';
import { FlagInsightsSection } from './insights-section.tsx';
import { PrerequisitesSection } from './prerequisites-section.tsx';
import { ReleasePlanSection } from './release-plan-section.tsx';
import { ScheduledChangesSection } from './scheduled-changes-section.tsx';
import { SettingsSection } from './settings-section.tsx';
import { StaleNotice } from './stale-flag.tsx';
import { TargetingSection } from './targeting-section.tsx';
import { useFlagEditor } from './use-flag-editor.ts';

/** A flag: its variants and, per environment, its switch, targets, rules and default; and its history. */
export const FlagPage = ({ flagKey }: { flagKey: string }) => (
  <ItemByKey<Flag> collection="flags" itemKey={flagKey} what="flag">
    {(flag, saved) => <FlagSections flag={flag} {...saved} />}
  </ItemByKey>
);

/**
 * The page's sections, each a component of its own that takes the editor (see
 * use-flag-editor.ts): a new section (insights, prerequisites…) is one more line here.
 */
function FlagSections({ flag, onSaved, onReload }: { flag: Flag } & SavedProps<Flag>) {
  const editor = useFlagEditor(flag, onSaved, onReload);
  const references = useCodeReferences(flag);
  return (
    <>
      <FlagHeader editor={editor} codeReferences={references.data?.length ?? 0} />
      <ChangeRequestsSection editor={editor} />
      <TargetingSection editor={editor} />
      <PrerequisitesSection editor={editor} />
      <EnvironmentCompareSection editor={editor} />
      <ReleasePlanSection editor={editor} />
      <ScheduledChangesSection editor={editor} />
      <SettingsSection editor={editor} />
      <FlagInsightsSection flag={flag} />
      <CodeReferencesSection flag={flag} references={references} />
      <HistorySection editor={editor} />
      {editor.dirty && (
        <SaveBar
          saving={editor.saving}
          mayEdit={editor.mayEdit}
          onDiscard={editor.discard}
          onSave={editor.save}
          notice={editor.stale && <StaleNotice edited onReload={editor.reloadOtherVersion} />}
        />
      )}
    </>
  );
}
