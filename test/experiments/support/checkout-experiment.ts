// The experiment most suites measure: "checkout" on flag "banner" in production, `on` against
// `off`, with the conversion metric "buys" as its primary. Drafted through the API as an admin.

type Admin = (method: string, path: string, body?: unknown) => Promise<{ id: string }>;

/** Creates metric "buys" (a conversion on `purchase`) and the draft "checkout" measuring it, with `more` of the request. */
export async function draftCheckoutExperiment(
  admin: Admin,
  more: { readonly secondary?: readonly string[]; readonly cuped?: boolean } = {},
): Promise<void> {
  await admin('POST', '/v1/projects/default/metrics', { key: 'buys', event: 'purchase', kind: 'conversion' });
  await admin('POST', '/v1/projects/default/experiments', {
    key: 'checkout',
    flag: 'banner',
    environment: 'production',
    control: 'off',
    treatments: ['on'],
    metrics: { primary: 'buys', ...(more.secondary === undefined ? {} : { secondary: more.secondary }) },
    ...(more.cuped === undefined ? {} : { cuped: more.cuped }),
  });
}
