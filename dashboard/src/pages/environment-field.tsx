import type { ApiError, Environment } from '../api.ts';
import { ChoiceField } from '../kit/field.tsx';
import { useProject } from '../project.ts';

/** Environments as a select's choices: chosen by key, shown by name. */
export const environmentChoices = (environments: readonly Environment[]) =>
  environments.map((e) => [e.key, e.name] as const);

/** The environment a form asks about (the playground's, the user view's): one of the project's. */
export function EnvironmentField({
  problem,
  value,
  onChange,
}: {
  problem: ApiError | undefined;
  value: string;
  onChange: (environment: string) => void;
}) {
  const { environments } = useProject();
  return (
    <ChoiceField
      label="Environment"
      path="/environment"
      problem={problem}
      value={value}
      choices={environmentChoices(environments)}
      onChange={onChange}
    />
  );
}
