import {
  ERROR_STATUS,
  type ErrorBody,
  type ErrorCode,
  type LostClaim,
  type ProblemDetail,
  type RanCall,
} from '@airlock/core';

export {
  ERROR_CODES,
  ERROR_STATUS,
  type ErrorCode,
  type LostClaim,
  type ProblemDetail,
} from '@airlock/core';

/** The most problems an error lists: a request of a million bad items is answered in a few kilobytes. */
export const MAX_LISTED_PROBLEMS = 50;
/** The longest detail an error carries, in UTF-16 units. */
const MAX_DETAIL_LENGTH = 4096;

/** An error's detail, cut to its bound, saying how many problems there are when only some are listed. */
function boundedDetail(detail: string, problems: number): string {
  const count =
    problems > MAX_LISTED_PROBLEMS
      ? ` (${problems} problems; the first ${MAX_LISTED_PROBLEMS} are listed)`
      : '';
  if (detail.length <= MAX_DETAIL_LENGTH) return `${detail}${count}`;
  return `${detail.slice(0, MAX_DETAIL_LENGTH)}…${count}`;
}

/** A failure the server reports as `{error: {code, detail}}` with the code's HTTP status. */
export class AirlockError extends Error {
  readonly code: ErrorCode;
  readonly detail: string;
  readonly problems: readonly ProblemDetail[] | undefined;
  /** Seconds the client should wait before retrying (sent as `retry-after`), when it should. */
  readonly retryAfterSeconds: number | undefined;

  /**
   * `problems` beyond MAX_LISTED_PROBLEMS are left out, and so is a detail's
   * text past 4 KiB; `total` is how many problems were found when the caller
   * passes only the first ones.
   */
  constructor(
    code: ErrorCode,
    detail: string,
    problems?: readonly ProblemDetail[],
    total = problems?.length ?? 0,
  ) {
    const shown = boundedDetail(detail, total);
    super(`${code}: ${shown}`);
    this.name = 'AirlockError';
    this.code = code;
    this.detail = shown;
    this.problems = problems?.slice(0, MAX_LISTED_PROBLEMS);
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
        ...this.bodyFields(),
      },
    };
  }

  /** What a refusal of this kind says besides its code and detail (`claim`, `ran`). */
  protected bodyFields(): Pick<ErrorBody['error'], 'claim' | 'ran'> {
    return {};
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

  protected override bodyFields() {
    return { claim: { ...this.claim } };
  }
}

/**
 * `not_claimable` of a hooked call that already ran, saying what it returned
 * (the body's `ran`), so a framework that runs the same call again hands the
 * model that output instead of running the call twice.
 */
export class CallAlreadyRanError extends AirlockError {
  readonly ran: RanCall;

  constructor(detail: string, ran: RanCall) {
    super('not_claimable', detail);
    this.name = 'CallAlreadyRanError';
    this.ran = ran;
  }

  protected override bodyFields() {
    return { ran: { ...this.ran } };
  }
}

/** True when a value is an {@link AirlockError}. */
export function isAirlockError(value: unknown): value is AirlockError {
  return value instanceof AirlockError;
}
