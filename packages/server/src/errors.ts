import {
  ERROR_STATUS,
  type ErrorBody,
  type ErrorCode,
  type LostClaim,
  type ProblemDetail,
} from '@airlock/core';

export {
  ERROR_CODES,
  ERROR_STATUS,
  type ErrorCode,
  type LostClaim,
  type ProblemDetail,
} from '@airlock/core';

/** A failure the server reports as `{error: {code, detail}}` with the code's HTTP status. */
export class AirlockError extends Error {
  readonly code: ErrorCode;
  readonly detail: string;
  readonly problems: readonly ProblemDetail[] | undefined;
  /** Seconds the client should wait before retrying (sent as `retry-after`), when it should. */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, detail: string, problems?: readonly ProblemDetail[]) {
    super(`${code}: ${detail}`);
    this.name = 'AirlockError';
    this.code = code;
    this.detail = detail;
    this.problems = problems;
  }

  /** The HTTP status of this error's code. */
  get status(): number {
    return ERROR_STATUS[this.code];
  }

  /** The wire body. */
  toBody(): ErrorBody {
    return {
      error: {
        code: this.code,
        detail: this.detail,
        ...(this.problems ? { problems: [...this.problems] } : {}),
      },
    };
  }
}

/**
 * `lease_lost`, saying what became of the row (the body's `claim`): its
 * state now, and whether it holds an outcome committed with the claim
 * presented, so an executor whose commit's answer was lost learns that it landed.
 */
export class LeaseLostError extends AirlockError {
  readonly claim: LostClaim;

  constructor(detail: string, claim: LostClaim) {
    super('lease_lost', detail);
    this.name = 'LeaseLostError';
    this.claim = claim;
  }

  override toBody(): ErrorBody {
    const { error } = super.toBody();
    return { error: { ...error, claim: { ...this.claim } } };
  }
}

/** True when a value is an {@link AirlockError}. */
export function isAirlockError(value: unknown): value is AirlockError {
  return value instanceof AirlockError;
}
