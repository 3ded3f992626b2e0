/**
 * A flag's production in the user-view suites: on, "off" by default, "on" for Dutch shoppers
 * (rule 1, a condition) and for the segment `beta` (rule 2), so each reason has a user.
 */
export const BANNER_IN_PRODUCTION = {
  enabled: true,
  defaultVariant: 'off',
  rules: [
    {
      description: 'Dutch shoppers',
      conditions: [{ type: 'attribute', attribute: 'country', operator: 'equals', value: 'NL' }],
      serve: { variant: 'on' },
    },
    { description: 'Beta testers', segments: ['beta'], serve: { variant: 'on' } },
  ],
};
