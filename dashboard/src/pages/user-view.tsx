import { useEffect, useState } from 'react';
import { type ApiError, api, enc, type UserViewFlag } from '../api.ts';
import { primaryEnvironment } from '../primary-environment.ts';
import { useEnvironmentNames, useProject } from '../project.ts';
import { navigate, useLocation } from '../router.tsx';
import { PageTitle } from '../ui.tsx';
import { type Context, contextOfQuery, contextQuery } from './user-context.ts';
import { UserContextForm } from './user-context-form.tsx';
import { UserViewResults } from './user-view-results.tsx';

/** What the page shows: the flags for the context its address names, once they are back. */
interface Answer {
  /** The query they answer, so an older answer is never shown for a newer question. */
  readonly query: string;
  readonly flags?: readonly UserViewFlag[];
  readonly error?: ApiError;
}

/**
 * The user view (docs/decisions/1810): every flag of the project for one user, in one
 * environment, each with its value, variant and what decided it. The context lives in the
 * address, so a link shows a colleague the same user.
 */
export function UserViewPage() {
  const { project, environments } = useProject();
  const search = useLocation().split('?')[1] ?? '';
  const asked = contextOfQuery(search);
  const environment = asked.environment ?? primaryEnvironment(environments)?.key ?? 'production';
  const query = contextQuery(environment, asked.context ?? {});
  const [answer, setAnswer] = useState<Answer>();
  // Grows with every submit, so the same context asked again is evaluated again.
  const [asking, setAsking] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `asking` is the signal to ask again
  useEffect(() => {
    if (asked.context === undefined) return;
    let current = true;
    api<{ flags: UserViewFlag[] }>('POST', `/projects/${enc(project.id)}/explain`, {
      environment,
      attributes: asked.context,
    }).then(
      ({ flags }) => current && setAnswer({ query, flags }),
      (error: ApiError) => current && setAnswer({ query, error }),
    );
    return () => {
      current = false;
    };
  }, [query, asking, project.id]);

  const show = (nextEnvironment: string, context: Context) => {
    setAsking((n) => n + 1);
    void navigate(`/projects/${enc(project.key)}/user-view${contextQuery(nextEnvironment, context)}`);
  };

  const environmentName = useEnvironmentNames()(environment);
  return (
    <>
      <PageTitle>User view</PageTitle>
      <p className="muted">
        Every flag of {project.name} as one user gets it: type their targeting key and attributes, and see
        each flag's value and what decided it. The address keeps the user, so you can share it.
      </p>
      <UserContextForm environment={environment} context={asked.context} onShow={show} />
      {asked.context !== undefined && (
        <UserViewResults
          environmentName={environmentName}
          context={asked.context}
          answer={answer?.query === query ? answer : undefined}
        />
      )}
    </>
  );
}
