/** Every error code the server answers with, and its HTTP status: one closed table. */
export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_input: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  run_not_found: 404,
  task_not_found: 404,
  conversation_not_found: 404,
  credential_not_found: 404,
  agent_application_not_found: 404,
  method_not_allowed: 405,
  task_not_waiting: 409,
  not_claimable_kind: 409,
  not_claimable: 409,
  lease_lost: 409,
  run_not_running: 409,
  no_profile_configuration: 409,
  contract_version_not_higher: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  invalid_configuration: 422,
  tightening_widens: 422,
  invalid_question: 422,
  invalid_resolution: 422,
  // Hardening (issue 11): refused input, stale decisions, rate limits.
  input_too_deep: 400,
  request_timeout: 408,
  version_mismatch: 409,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

/** A stable error code from {@link ERROR_STATUS}. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** The list of error codes, for schemas. */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** One validation problem: where (a JSON pointer) and what. */
export interface ProblemDetail {
  code: string;
  pointer: string;
  message: string;
}

/** A failure the server reports as `{error: {code, detail}}` with the code's HTTP status. */
export class AirlockError extends Error {
  readonly code: ErrorCode;
  readonly detail: string;
  readonly problems: readonly ProblemDetail[] | undefined;

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
  toBody(): { error: { code: ErrorCode; detail: string; problems?: ProblemDetail[] } } {
    return {
      error: {
        code: this.code,
        detail: this.detail,
        ...(this.problems ? { problems: [...this.problems] } : {}),
      },
    };
  }
}

/** True when a value is an {@link AirlockError}. */
export function isAirlockError(value: unknown): value is AirlockError {
  return value instanceof AirlockError;
}
