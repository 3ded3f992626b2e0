/**
 * Evaluation contexts that reach the branches of flagd's reference documents
 * (test/fixtures/flagd-schema: full.json and the positive samples): the colours, email domains,
 * ids, versions, times and nested names their targeting reads, each on both sides of its test,
 * and contexts that read nothing. `now` is the instant the suite pins flagd's clock to.
 */
export const flagdReferenceContexts = (now: number): Record<string, unknown>[] => [
  {},
  { color: 'yellow' },
  { email: 'ann@faas.com', targetingKey: 'ann' },
  { email: 'bob@example.com', targetingKey: 'bob' },
  { email: 'eve@company.com' },
  { id: 'abc123' },
  { id: '123xyz' },
  { id: 'a3' },
  { version: '1.9.9' },
  { version: '2.0.0' },
  { version: '3.0.5' },
  { version: '3.1.0' },
  { version: 'v3.1.0' },
  { fn: 'Sulisław', ln: 'Świętopełk', age: 29, customer: false },
  { time: now - 10 },
  { time: now + 10 },
  { user: { name: 'ann' } },
  { user: { name: 'ann' }, targetingKey: 'k1' },
];
