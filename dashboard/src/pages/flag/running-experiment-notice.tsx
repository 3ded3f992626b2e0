import { type Experiment, enc, usePage } from '../../api.ts';
import { useProject } from '../../project.ts';
import { Link } from '../../router.tsx';

/**
 * Above a flag's targeting in one environment: the experiment running on it there, if any. Its
 * split is this environment's rollout, so changing the rollout while it runs skews what it
 * measures (SPEC §13): the results' sample-ratio check would warn.
 */
export function RunningExperimentNotice({ flagKey, environment }: { flagKey: string; environment: string }) {
  const { project } = useProject();
  const running = usePage<Experiment>(`/projects/${enc(project.id)}/experiments?status=running&limit=1000`);
  const experiment = running.data?.items.find((e) => e.flag === flagKey && e.environment === environment);
  if (experiment === undefined) return null;
  return (
    <p className="notice">
      The experiment{' '}
      <Link to={`/projects/${enc(project.key)}/experiments/${enc(experiment.key)}`}>{experiment.name}</Link>{' '}
      is running on this flag here: its split is this rollout. Changing who gets which variant while it runs
      skews its results, and its sample-ratio check will warn.
    </p>
  );
}
