// Reading a V8 CPU profile (the inspector's Profiler.stop) as the bench tools print it: self time
// per function, time inside each function (its callees included), and the busy stretches, the
// runs of samples in which the event loop never went idle.

export interface Profile {
  readonly nodes: ReadonlyArray<{
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
    readonly children?: readonly number[];
  }>;
  readonly samples: readonly number[];
  /** µs between one sample and the one before. */
  readonly timeDeltas: readonly number[];
}

type Frame = Profile['nodes'][number]['callFrame'];

/** A frame as printed: function, then file (from src/ or the package) and line. */
export function frameName({ functionName, url, lineNumber }: Frame): string {
  const where = url.replace(/^.*node_modules\//, '').replace(/^.*\/src\//, 'src/');
  return `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
}

/** Samples per function where it was on top (self) and anywhere on the stack (total); `busy`: samples not idle. */
export function functionTimes(profile: Profile): {
  readonly busy: number;
  readonly self: Map<string, number>;
  readonly total: Map<string, number>;
} {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let busy = 0;
  for (const id of profile.samples) {
    const top = byId.get(id);
    if (top === undefined || top.callFrame.functionName === '(idle)') continue;
    busy++;
    const name = frameName(top.callFrame);
    self.set(name, (self.get(name) ?? 0) + 1);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (frame === undefined || frame.functionName === '(root)') continue;
      const stacked = frameName(frame);
      if (seen.has(stacked)) continue;
      seen.add(stacked);
      total.set(stacked, (total.get(stacked) ?? 0) + 1);
    }
  }
  return { busy, self, total };
}

/** The durations, µs, of every run of samples without an idle one between (a synchronous stretch of the loop, GC included). */
export function busyStretches(profile: Profile): number[] {
  const idle = new Set(
    profile.nodes.filter((node) => node.callFrame.functionName === '(idle)').map((node) => node.id),
  );
  const stretches: number[] = [];
  let current = 0;
  profile.samples.forEach((id, i) => {
    if (idle.has(id)) {
      if (current > 0) stretches.push(current);
      current = 0;
    } else current += profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0;
  });
  if (current > 0) stretches.push(current);
  return stretches;
}
