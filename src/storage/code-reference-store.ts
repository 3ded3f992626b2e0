import type { CodeReferenceReport, StoredCodeReference } from '../domain/code-reference.ts';

/** Where repositories name a project's flags (issue 39): each report replaces its repository's branch whole. */
export interface CodeReferenceStore {
  /** The references a repository's branch holds now, in path and line order, with its URL template. */
  findCodeReport(
    projectId: string,
    repository: string,
    branch: string,
  ): Promise<CodeReferenceReport | undefined>;
  /** Replaces the branch's references and what is known of it. */
  replaceCodeReport(projectId: string, report: CodeReferenceReport, at: string): Promise<void>;
  /** Every reference of the project (or of one flag), by flag, repository, branch, path and line. */
  listCodeReferences(projectId: string, flag?: string): Promise<StoredCodeReference[]>;
  /** How many references each flag has, over every repository and branch; a flag with none is absent. */
  countCodeReferences(projectId: string): Promise<Map<string, number>>;
}
