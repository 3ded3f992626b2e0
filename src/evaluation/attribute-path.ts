import type { EvaluationContext } from '../domain/evaluation-result.ts';
import { isPlainObject } from '../domain/json.ts';
import { sharedCompiled } from './shared-compiled.ts';

/** Reads one attribute from a context; `undefined` means missing. */
export type AttributeReader = (context: EvaluationContext) => unknown;

const hasOwn = Object.hasOwn;

/**
 * Compiles an attribute name into a reader: the attribute of that exact name when the context has
 * one, else, for a dotted name, the value reached through nested objects; `null` counts as missing.
 * One reader per name, shared by every rule and rollout that reads it.
 */
export const compileAttributePath: (name: string) => AttributeReader = sharedCompiled(readerOf, 10_000);

function readerOf(name: string): AttributeReader {
  // Own properties only: `constructor` or `__proto__` must not reach into Object.prototype.
  const segments = name.split('.');
  if (segments.length === 1) {
    return (context) => {
      const value = hasOwn(context, name) ? context[name] : undefined;
      return value === null ? undefined : value;
    };
  }
  return (context) => {
    if (hasOwn(context, name)) {
      const value = context[name];
      return value === null ? undefined : value;
    }
    let current: unknown = context;
    for (let i = 0; i < segments.length; i++) {
      if (!isPlainObject(current)) return undefined;
      const segment = segments[i] as string;
      if (!hasOwn(current, segment)) return undefined;
      current = current[segment];
    }
    return current === null ? undefined : current;
  };
}
