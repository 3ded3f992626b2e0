import { useEffect, useState } from 'react';
import { api, type Explanation, enc, type Flag } from '../api.ts';
import { useProject } from '../project.ts';

/**
 * Says why an environment's imported JsonLogic targeting cannot be evaluated, when it cannot: a
 * flagd document may carry such a flag (decision 0102), which then answers PARSE_ERROR. The
 * server compiles the targeting, so the page asks it (the playground's route), once per version.
 */
export function TargetingProblem({ flag, environment }: { flag: Flag; environment: string }) {
  const { project } = useProject();
  const [problem, setProblem] = useState<string | undefined>();
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new version of the flag may compile differently
  useEffect(() => {
    let current = true;
    setProblem(undefined);
    api<Explanation>('POST', `/projects/${enc(project.id)}/flags/${enc(flag.key)}/explain`, {
      environment,
      attributes: {},
    }).then(
      (result) => {
        if (current && result.reason === 'error') setProblem(`${result.errorCode}: ${result.errorMessage}`);
      },
      // Only a viewer's own view of the flag is at stake: the editor stays usable without it.
      () => {},
    );
    return () => {
      current = false;
    };
  }, [project.id, flag.key, flag.version, environment]);
  if (problem === undefined) return null;
  return (
    <p className="error" role="alert">
      This targeting cannot be evaluated, so the flag answers an error in this environment ({problem}). Import
      a corrected flagd document to fix it.
    </p>
  );
}
