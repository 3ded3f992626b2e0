import { contextLimitBreach } from '../../domain/context-limits.ts';
import type { EvaluationContext, EvaluationDetail, Reason } from '../../domain/evaluation-result.ts';
import type { FlagMetadata, JsonValue } from '../../domain/flag.ts';
import { isPlainObject } from '../../domain/json.ts';

/** OFREP's reasons for docs/product.md §3's (docs/product.md §6). */
export const OFREP_REASONS: Readonly<Record<Reason, string>> = {
  targeting: 'TARGETING_MATCH',
  split: 'SPLIT',
  default: 'DEFAULT',
  disabled: 'DISABLED',
  static: 'STATIC',
  prerequisite_failed: 'PREREQUISITE_FAILED',
  error: 'ERROR',
};

export type OfrepErrorCode =
  | 'PARSE_ERROR'
  | 'TARGETING_KEY_MISSING'
  | 'INVALID_CONTEXT'
  | 'FLAG_NOT_FOUND'
  | 'GENERAL';

export interface OfrepSuccess {
  readonly key: string;
  /** Absent when no variant was served: the provider must then use the code default. */
  readonly value?: JsonValue;
  readonly reason: string;
  readonly variant?: string;
  readonly metadata: FlagMetadata;
}

export interface OfrepFailure {
  readonly key?: string;
  readonly errorCode: OfrepErrorCode;
  readonly errorDetails: string;
  readonly metadata?: FlagMetadata;
}

/** An OFREP error response: its HTTP status and `{ key?, errorCode, errorDetails }` body. */
export class OfrepError extends Error {
  readonly status: number;
  readonly errorCode: OfrepErrorCode;

  constructor(status: number, errorCode: OfrepErrorCode, details: string) {
    super(details);
    this.name = 'OfrepError';
    this.status = status;
    this.errorCode = errorCode;
  }
}

/**
 * The evaluation context of an OFREP request body `{ context }`. A missing body or context is
 * the empty context (the providers send `{}` for an anonymous user); other fields are ignored
 * so that newer providers keep working. `targetingKey`, when present, must be a string.
 */
export function contextOf(body: unknown): EvaluationContext {
  if (body === undefined || body === null) return {};
  if (!isPlainObject(body)) {
    throw new OfrepError(400, 'PARSE_ERROR', 'The request body must be a JSON object: { "context": { … } }.');
  }
  const context = body.context;
  if (context === undefined) return {};
  if (!isPlainObject(context)) {
    throw new OfrepError(400, 'INVALID_CONTEXT', '"context" must be a JSON object.');
  }
  if (Object.hasOwn(context, 'targetingKey') && typeof context.targetingKey !== 'string') {
    throw new OfrepError(400, 'INVALID_CONTEXT', '"context.targetingKey" must be a string.');
  }
  const breach = contextLimitBreach(context);
  if (breach !== undefined) throw new OfrepError(400, 'INVALID_CONTEXT', `"context" ${breach}.`);
  return context;
}

/** The OFREP success body for an evaluation; without `value` and `variant` when none was served. */
export function toOfrepSuccess(detail: EvaluationDetail): OfrepSuccess {
  const reason = OFREP_REASONS[detail.reason];
  if (detail.variant === null) return { key: detail.key, reason, metadata: detail.flagMetadata };
  return {
    key: detail.key,
    value: detail.value,
    reason,
    variant: detail.variant,
    metadata: detail.flagMetadata,
  };
}

export const flagNotFound = (key: string): OfrepFailure => ({
  key,
  errorCode: 'FLAG_NOT_FOUND',
  errorDetails: `Flag '${key}' was not found`,
});

/** A flag that cannot be evaluated (imported targeting that does not compile): OFREP's error with its code. */
export const evaluationFailed = (detail: EvaluationDetail): OfrepFailure => ({
  key: detail.key,
  errorCode: detail.errorCode ?? 'GENERAL',
  errorDetails: `Flag '${detail.key}' cannot be evaluated: ${detail.errorMessage ?? 'unknown error'}`,
  metadata: detail.flagMetadata,
});

export const targetingKeyMissing = (detail: EvaluationDetail): OfrepFailure => ({
  key: detail.key,
  errorCode: 'TARGETING_KEY_MISSING',
  errorDetails: `Flag '${detail.key}' splits users by targetingKey; the context has none.`,
  metadata: detail.flagMetadata,
});
