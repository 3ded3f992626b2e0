/**
 * Per-call scratch state of a compiled function. flagd's engine compiles JsonLogic to JavaScript
 * that shares one `prev` variable between sub-expressions; some results depend on it, so we model it.
 */
export interface Frame {
  prev: unknown;
  /** Index of the element an iterator callback is working on (`{"var": "../index"}`). */
  index: number;
}

/** A compiled sub-expression run over the evaluation data. */
export type Run = (data: unknown, above: unknown, frame: Frame) => unknown;
