import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError, api, type ChangeRequest, enc, type Flag, isChangeRequest } from '../../api.ts';
import { variantsReachEveryEnvironment } from '../../change-reach.ts';
import { counted } from '../../kit/counted.ts';
import { askToReload } from '../../kit/stale-version.tsx';
import { useDraft } from '../../kit/use-draft.ts';
import { useProject } from '../../project.ts';
import { confirmProtected, isProtected } from '../../protected.tsx';
import { can, useSession } from '../../session.ts';
import { toast } from '../../ui.tsx';
import { draftOf, type EnvironmentDraft, type FlagDraft, flagPatch, unchosenVariants } from './draft.ts';

/** Everything the flag page's sections share: the flag, its draft, the open environment, and saving. */
export interface FlagEditor {
  readonly flag: Flag;
  readonly draft: FlagDraft;
  readonly initial: FlagDraft;
  readonly problem: ApiError | undefined;
  readonly saving: boolean;
  readonly dirty: boolean;
  readonly mayEdit: boolean;
  /** The environment whose tab is open, and the keys of all tabs. */
  readonly environment: string;
  readonly environmentKeys: readonly string[];
  readonly openEnvironment: (key: string) => void;
  /** Grows with every save, so sections that show derived data (history) can reload. */
  readonly generation: number;
  readonly change: (change: (draft: FlagDraft) => FlagDraft) => void;
  /** Changes the open environment's draft. */
  readonly changeEnvironment: (change: Partial<EnvironmentDraft>) => void;
  readonly save: () => Promise<void>;
  readonly discard: () => void;
  /**
   * For actions outside the draft (archive, delete, copy): shows their problem with the others,
   * or, for a 412, asks about the other version (stale-flag.tsx).
   */
  readonly setProblem: (problem: ApiError | undefined) => void;
  /**
   * For a section that shows its own problems beside its own fields (prerequisites, history):
   * a 412 still opens the page's one dialog about the other version (decision 1813), anything
   * else goes to `show`.
   */
  readonly refusedIn: (show: (problem: ApiError) => void) => (problem: ApiError) => void;
  /** Someone else saved the flag since it was loaded: saving again would be refused. */
  readonly stale: boolean;
  /** Loads the stored flag again, discarding the draft: the person chose the other version. */
  readonly reloadOtherVersion: () => void;
  readonly saved: (flag: Flag) => void;
  /** A write became a change request (nothing changed): sections that list requests reload. */
  readonly requested: () => void;
  /**
   * A section's write answered (decision 1711): applied, the page takes the new version and says
   * what `applied` words; held for approvals, nothing changed yet, the page says so (`requested`,
   * by default how many approvals it needs) and its request list reloads.
   */
  readonly written: (
    answer: Flag | ChangeRequest,
    applied: (flag: Flag) => string,
    requested?: string,
  ) => void;
}

/**
 * The flag page's state and save logic. The page opens on the first environment that is not
 * protected, so a first click does not land in production.
 */
export function useFlagEditor(flag: Flag, onSaved: (flag: Flag) => void, reload: () => void): FlagEditor {
  const { project } = useProject();
  const { me } = useSession();
  const initial = useMemo(() => draftOf(flag), [flag]);
  const { draft, setDraft, dirty, discard } = useDraft(initial);
  const [problem, setProblem] = useState<ApiError>();
  const [generation, setGeneration] = useState(0);
  const { environment, openEnvironment, environmentKeys } = useOpenEnvironment(flag);
  const { stale, report, reloadOtherVersion } = useStaleness(initial, dirty, reload, setProblem);

  const saved = useCallback(
    (next: Flag) => {
      onSaved(next);
      setGeneration((g) => g + 1);
    },
    [onSaved],
  );
  const requested = useCallback(() => setGeneration((g) => g + 1), []);

  /** Shows a refusal, opening the environment of its first field so that field is on screen. */
  const refused = (e: ApiError) => {
    report(e);
    const envOfError = e.errors.map((x) => /^\/environments\/([^/]+)/.exec(x.path)?.[1]).find(Boolean);
    if (envOfError && envOfError !== environment) openEnvironment(envOfError);
  };
  const { save, saving } = useSave({ flag, draft, initial, environmentKeys }, setProblem, refused, {
    saved,
    requested: () => {
      // Nothing was written: the change waits for approvals (docs/product.md §10), listed on this page.
      setDraft(initial);
      requested();
    },
  });

  return {
    flag,
    draft,
    initial,
    problem,
    saving,
    dirty,
    mayEdit: can(me, 'editor', project),
    environment,
    environmentKeys,
    openEnvironment,
    generation,
    change: setDraft,
    changeEnvironment: useEnvironmentChange(environment, setDraft),
    save,
    discard: () => {
      discard();
      setProblem(undefined);
    },
    setProblem: report,
    refusedIn: (show) => (problem) => (problem.status === 412 ? report(problem) : show(problem)),
    stale,
    reloadOtherVersion,
    saved,
    requested,
    written: (answer, applied, requestedWords) => {
      if (isChangeRequest(answer)) {
        toast(requestedWords ?? requestSent(answer));
        requested();
      } else {
        saved(answer);
        toast(applied(answer));
      }
    },
  };
}

/** The environment whose tab is open (first the first one not protected), and the keys of all tabs. */
function useOpenEnvironment(flag: Flag) {
  const { environments } = useProject();
  const environmentKeys = environments.map((e) => e.key).filter((k) => flag.environments[k]);
  const [environment, openEnvironment] = useState(
    () =>
      environments.find((e) => flag.environments[e.key] && !isProtected(e))?.key ?? environmentKeys[0] ?? '',
  );
  return { environment, openEnvironment, environmentKeys };
}

/** Changes the open environment's part of the draft. */
function useEnvironmentChange(
  environment: string,
  setDraft: (change: (draft: FlagDraft) => FlagDraft) => void,
) {
  return useCallback(
    (change: Partial<EnvironmentDraft>) =>
      setDraft((d) => {
        const current = d.environments[environment];
        return current
          ? { ...d, environments: { ...d.environments, [environment]: { ...current, ...change } } }
          : d;
      }),
    [environment, setDraft],
  );
}

/**
 * Whether someone else saved the flag since this version was loaded; `report` shows a problem,
 * and for a 412 asks now whether to load the other version (the draft stays until the person
 * chooses, decision 1813).
 */
function useStaleness(
  initial: FlagDraft,
  dirty: boolean,
  reload: () => void,
  setProblem: (problem: ApiError | undefined) => void,
) {
  // Stale is said of the version loaded: loading another (a save, a reload) ends it.
  const [staleVersion, setStaleVersion] = useState<FlagDraft>();
  const reloadOtherVersion = useCallback(() => {
    setProblem(undefined);
    reload();
  }, [reload, setProblem]);
  const report = (e: ApiError | undefined) => {
    if (e?.status !== 412) return setProblem(e);
    setProblem(undefined);
    setStaleVersion(initial);
    void askToReload(dirty).then((reloading) => reloading && reloadOtherVersion());
  };
  return { stale: staleVersion === initial, report, reloadOtherVersion };
}

/**
 * Saving the draft: a rule without a variant is refused before asking, a change that reaches a
 * protected environment is confirmed first, and the answer is the saved flag or a change request.
 */
function useSave(
  {
    flag,
    draft,
    initial,
    environmentKeys,
  }: Pick<FlagEditor, 'flag' | 'draft' | 'initial' | 'environmentKeys'>,
  setProblem: (problem: ApiError | undefined) => void,
  refused: (problem: ApiError) => void,
  answered: { saved: (flag: Flag) => void; requested: () => void },
) {
  const { project, environments } = useProject();
  const { me } = useSession();
  const [saving, setSaving] = useState(false);
  const save = async () => {
    const unchosen = unchosenVariants(draft);
    if (unchosen.length > 0)
      return refused(new ApiError(400, { detail: 'A rule has no variant to serve.', errors: unchosen }));
    const patch = flagPatch(flag.type, draft, initial);
    // Variants are served in every environment (decision 1003): changing one reaches them all.
    const touched = variantsReachEveryEnvironment(flag.variants, patch.variants)
      ? environmentKeys
      : Object.keys((patch.environments as object | undefined) ?? {});
    const reached = environments.filter((e) => touched.includes(e.key));
    if (!(await confirmProtected(reached, `save ${flag.name}`, can(me, 'admin', project)))) return;
    setSaving(true);
    setProblem(undefined);
    try {
      const next = await api<Flag | ChangeRequest>('PATCH', `/flags/${enc(flag.id)}`, patch, flag.version);
      if (isChangeRequest(next)) {
        answered.requested();
        toast(requestSent(next));
      } else {
        answered.saved(next);
        toast(`Saved ${next.name}.`);
      }
    } catch (error) {
      refused(error as ApiError);
    } finally {
      setSaving(false);
    }
  };
  return { save, saving };
}

/** Calls `reload` after every save (when `generation` grows), not on the first render. */
export function useReloadOnSave(generation: number, reload: () => void): void {
  const first = useRef(true);
  useEffect(() => {
    if (first.current) first.current = false;
    else if (generation > 0) reload();
  }, [generation, reload]);
}

/** What the page says when a write became a change request: nothing changed yet. */
export const requestSent = (request: ChangeRequest): string =>
  `Change request sent: it needs ${counted(request.requiredApprovals, 'approval')} before it is applied.`;
