// Request bodies that many HTTP suites send, written once so that a suite states only what it varies.

/** A flag's variants from `{ variantKey: value }`, in the order written. */
export function variantsOf(values: Record<string, unknown>): { key: string; value: unknown }[] {
  return Object.entries(values).map(([key, value]) => ({ key, value }));
}

/** The body of POST /v1/projects/{key}/flags for a flag of `type` with the variants `values`. */
export function flagBody(key: string, type: string, values: Record<string, unknown>) {
  return { key, type, variants: variantsOf(values) };
}
