/** One place a repository's tracked file names a flag (issue 39): `flagstaff refs` finds them. */
export interface CodeReference {
  readonly flag: string;
  /** The file's path in the repository, `/`-separated. */
  readonly path: string;
  /** 1-based. */
  readonly line: number;
  /** The lines around the match, from two before to two after (each cut to a readable length). */
  readonly context: readonly string[];
}

/** A stored reference with the repository and branch it was reported from, and its link when the report gave a template. */
export interface StoredCodeReference extends CodeReference {
  readonly repository: string;
  readonly branch: string;
  readonly url: string | null;
  readonly reportedAt: string;
}

/** One repository's branch as a report describes it. */
export interface CodeReferenceReport {
  readonly repository: string;
  readonly branch: string;
  /** `{path}`, `{line}` and `{branch}` are replaced to link a reference: `https://github.com/o/r/blob/{branch}/{path}#L{line}`. */
  readonly urlTemplate: string | null;
  readonly references: readonly CodeReference[];
}

/** A reference's link from its report's template, or null without one. */
export function referenceUrl(
  template: string | null,
  branch: string,
  reference: CodeReference,
): string | null {
  if (template === null) return null;
  return template
    .replaceAll('{branch}', encodeURIComponent(branch))
    .replaceAll('{path}', reference.path.split('/').map(encodeURIComponent).join('/'))
    .replaceAll('{line}', String(reference.line));
}

/** The same place, whatever else differs: what makes two reports of a branch the same. */
export const referenceIdentity = (reference: CodeReference) =>
  `${reference.path}\u0000${reference.line}\u0000${reference.flag}`;
