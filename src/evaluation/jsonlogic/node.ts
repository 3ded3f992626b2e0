import type { Token } from './precedence.ts';
import type { Frame, Run } from './run.ts';

export type { Frame, Run };

/**
 * A compiled sub-expression: a value known at compile time, or a closure over the evaluation data.
 * `tokens` describe the unparenthesised JavaScript text flagd's engine generates for a few operators
 * (see precedence.ts); `run` is that text evaluated on its own.
 */
export type Node =
  | { readonly constant: true; readonly value: unknown }
  | { readonly constant: false; readonly run: Run; readonly tokens?: readonly Token[] };

export const constant = (value: unknown): Node => ({ constant: true, value });
export const dynamic = (run: Run): Node => ({ constant: false, run });

export function evaluate(node: Node, data: unknown, above: unknown, frame: Frame): unknown {
  return node.constant ? node.value : node.run(data, above, frame);
}

export const newFrame = (index = 0): Frame => ({ prev: undefined, index });

/** A node that fails every time it runs, as flagd does for a lazily compiled part it cannot build. */
export function failing(error: unknown): Node {
  return dynamic(() => {
    throw error;
  });
}

/** Evaluates a list of nodes into a new array, left to right. */
export function arrayNode(nodes: readonly Node[]): Node {
  if (nodes.every((node) => node.constant)) {
    return constant(nodes.map((node) => (node as { value: unknown }).value));
  }
  return dynamic((data, above, frame) => nodes.map((node) => evaluate(node, data, above, frame)));
}

/** Refuses targeting at compile time, with the JSON pointer of the offending expression. */
export class TargetingCompileError extends Error {
  readonly path: string;

  constructor(path: string, message: string) {
    super(message);
    this.name = 'TargetingCompileError';
    this.path = path;
  }
}
