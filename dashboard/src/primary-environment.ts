import type { Environment } from './api.ts';

/** The environment insights show first: production when the project has one, else its first. */
export const primaryEnvironment = (environments: readonly Environment[]): Environment | undefined =>
  environments.find((e) => e.key === 'production') ?? environments[0];
