import type { ErrorCode, LostClaim, ProblemDetail, RanCall, TaskState } from '@airlock/core';

/** One validation problem the server reported: where (a JSON pointer) and what (core's wire type). */
export type Problem = ProblemDetail;

/**
 * What a `lease_lost` refusal says of the row (core's wire type): `task_state`,
 * its state now; `committed`, true when it holds an outcome committed with
 * the claim presented (an earlier commit of that claim landed).
 */
export type { LostClaim, RanCall };

/** The failure modes the SDK tells apart, one error class each. */
type FailureMode =
  | 'validation'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'lease_lost'
  | 'refused'
  | 'resync'
  | 'server';

/**
 * Every error code of the kernel's closed table and the failure mode it
 * means. Keyed by core's ErrorCode union: a code added there and not here is
 * a compile error, so no code silently falls through to ServerError.
 */
export const ERROR_MODES = {
  invalid_json: 'validation',
  invalid_input: 'validation',
  invalid_configuration: 'validation',
  tightening_widens: 'validation',
  invalid_question: 'validation',
  invalid_resolution: 'validation',
  input_too_deep: 'validation',
  remember_unavailable: 'validation',
  edit_refused: 'validation',
  unauthenticated: 'unauthorized',
  forbidden: 'forbidden',
  approver_not_allowed: 'forbidden',
  self_approval_refused: 'forbidden',
  admin_required: 'forbidden',
  not_found: 'not_found',
  run_not_found: 'not_found',
  task_not_found: 'not_found',
  conversation_not_found: 'not_found',
  credential_not_found: 'not_found',
  agent_application_not_found: 'not_found',
  delivery_not_found: 'not_found',
  task_not_waiting: 'conflict',
  retry_refused: 'conflict',
  approval_refused: 'conflict',
  not_claimable_kind: 'conflict',
  not_claimable: 'conflict',
  run_not_running: 'conflict',
  no_profile_configuration: 'conflict',
  contract_version_not_higher: 'conflict',
  version_mismatch: 'conflict',
  run_not_gateway: 'conflict',
  run_busy: 'conflict',
  call_mismatch: 'conflict',
  application_has_member_credentials: 'conflict',
  last_admin: 'conflict',
  label_taken: 'conflict',
  stale_digest: 'conflict',
  delivery_in_flight: 'conflict',
  feed_position_pruned: 'resync',
  lease_lost: 'lease_lost',
  payload_too_large: 'refused',
  unsupported_media_type: 'refused',
  method_not_allowed: 'refused',
  request_timeout: 'refused',
  headers_too_large: 'refused',
  rate_limited: 'refused',
  internal: 'server',
  unavailable: 'server',
  store_unavailable: 'server',
  migrations_pending: 'server',
} as const satisfies Record<ErrorCode, FailureMode>;

/** The error codes of one failure mode. */
type CodesOf<M extends FailureMode> = {
  [C in ErrorCode]: (typeof ERROR_MODES)[C] extends M ? C : never;
}[ErrorCode];

const BRAND: unique symbol = Symbol.for('@airlock/sdk.error');

/** What every SDK error carries: the server's stable code, its detail and the HTTP status. */
export interface AirlockErrorInit {
  code: string;
  detail: string;
  status?: number | null | undefined;
  problems?: readonly Problem[] | undefined;
  /** What a `lease_lost` refusal said of the row, when the kernel said it. */
  claim?: LostClaim | undefined;
  /** What a `not_claimable` refusal said a call that already ran returned, when the kernel said it. */
  ran?: RanCall | undefined;
  cause?: unknown;
}

/**
 * The base of every error the SDK throws. Catch a subclass (or use its type
 * guard) to handle one failure mode; `code` is the server's stable code.
 */
export class AirlockError extends Error {
  /** The server's stable error code, such as `task_not_waiting`. */
  readonly code: string;
  /** The server's human-readable detail. */
  readonly detail: string;
  /** The HTTP status the server answered with, or null when no answer arrived. */
  readonly status: number | null;
  readonly [BRAND] = true;

  constructor(init: AirlockErrorInit) {
    super(`${init.code}: ${init.detail}`, init.cause === undefined ? {} : { cause: init.cause });
    this.name = 'AirlockError';
    this.code = init.code;
    this.detail = init.detail;
    this.status = init.status ?? null;
  }
}

/**
 * The request was malformed or refused as invalid (a bad declaration, a
 * widening tightening, an invalid question or answer); `problems` lists every
 * issue found. Retrying the same request gets the same answer.
 */
export class ValidationError extends AirlockError {
  declare readonly code: CodesOf<'validation'>;
  /** Every problem the server found, each with a JSON pointer into what was sent. */
  readonly problems: readonly Problem[];

  constructor(init: AirlockErrorInit) {
    super(init);
    this.name = 'ValidationError';
    this.problems = init.problems ?? [];
  }
}

/** The token is missing, unknown or revoked (`unauthenticated`). */
export class UnauthorizedError extends AirlockError {
  declare readonly code: CodesOf<'unauthorized'>;
  constructor(init: AirlockErrorInit) {
    super(init);
    this.name = 'UnauthorizedError';
  }
}

/** The token is of the wrong plane or of another workspace (`forbidden`); nothing changed. */
export class ForbiddenError extends AirlockError {
  declare readonly code: CodesOf<'forbidden'>;
  constructor(init: AirlockErrorInit) {
    super(init);
    this.name = 'ForbiddenError';
  }
}

/** No such run, task, conversation, credential, agent application or route. */
export class NotFoundError extends AirlockError {
  declare readonly code: CodesOf<'not_found'>;
  constructor(init: AirlockErrorInit) {
    super(init);
    this.name = 'NotFoundError';
  }
}

/**
 * The row or run is not in a state that allows this: most often a decision
 * already made elsewhere (`task_not_waiting`). Nothing changed.
 */
export class ConflictError extends AirlockError {
  declare readonly code: CodesOf<'conflict'> | CodesOf<'lease_lost'>;
  /**
   * On `not_claimable` of a hooked call that already ran: the output committed to its row (a
   * framework that runs the same call again hands the model this instead); null otherwise.
   */
  readonly ran: RanCall | null;
  constructor(init: AirlockErrorInit) {
    super(init);
    this.name = 'ConflictError';
    this.ran = init.ran ?? null;
  }
}

/**
 * An executor's claim no longer holds its row (`lease_lost`): its result
 * cannot be committed. `claim` says what became of the row: a retried commit
 * answered `{committed: true}` means an earlier attempt landed.
 */
export class LeaseLostError extends ConflictError {
  declare readonly code: CodesOf<'lease_lost'>;
  /** The row's state now and whether this claim committed it; null from a kernel that does not say (older than this SDK). */
  readonly claim: LostClaim | null;

  constructor(init: AirlockErrorInit) {
    super(init);
    this.name = 'LeaseLostError';
    this.claim = init.claim ?? null;
  }
}

/** The request itself was refused: too large, wrong media type or method, too slow, or too many. */
export class RequestRefusedError extends AirlockError {
  declare readonly code: CodesOf<'refused'>;
  constructor(init: AirlockErrorInit) {
    super(init);
    this.name = 'RequestRefusedError';
  }
}

/**
 * A feed was resumed from a position whose events retention has pruned
 * (`feed_position_pruned`): read the current state again (runs, tasks), then
 * follow the feed from `after: 'latest'`. Nothing was skipped silently.
 */
export class FeedResyncError extends AirlockError {
  declare readonly code: CodesOf<'resync'>;
  constructor(init: AirlockErrorInit) {
    super(init);
    this.name = 'FeedResyncError';
  }
}

/**
 * The kernel failed or is unavailable (`internal`, `unavailable`,
 * `store_unavailable`, `migrations_pending`, or an unknown code).
 */
export class ServerError extends AirlockError {
  constructor(init: AirlockErrorInit) {
    super(init);
    this.name = 'ServerError';
  }
}

/**
 * No answer arrived: the kernel is unreachable or the connection broke
 * (`connection_failed`), or it did not answer in time (`deadline_exceeded`,
 * a {@link DeadlineExceededError}).
 */
export class ConnectionError extends AirlockError {
  declare readonly code: 'connection_failed' | 'deadline_exceeded';
  constructor(detail: string, cause?: unknown) {
    super({ code: 'connection_failed', detail, cause });
    this.name = 'ConnectionError';
  }
}

/**
 * The kernel did not answer within the request's timeout
 * (`deadline_exceeded`; `timeoutMs` in the client's options, 30 s by
 * default), or a feed's socket did not open in that time. A write that timed
 * out may have been applied: read before sending it again. A
 * {@link ConnectionError} too, since no answer arrived.
 */
export class DeadlineExceededError extends ConnectionError {
  declare readonly code: 'deadline_exceeded';
  /** How long the SDK waited for the answer, in milliseconds. */
  readonly timeoutMs: number;

  constructor(detail: string, timeoutMs: number) {
    super(detail);
    // ConnectionError fixes its code; this failure mode has its own.
    (this as { code: string }).code = 'deadline_exceeded';
    this.message = `deadline_exceeded: ${detail}`;
    this.name = 'DeadlineExceededError';
    this.timeoutMs = timeoutMs;
  }
}

type ErrorClass = new (init: AirlockErrorInit) => AirlockError;

const BY_MODE: Record<FailureMode, ErrorClass> = {
  validation: ValidationError,
  unauthorized: UnauthorizedError,
  forbidden: ForbiddenError,
  not_found: NotFoundError,
  conflict: ConflictError,
  lease_lost: LeaseLostError,
  refused: RequestRefusedError,
  resync: FeedResyncError,
  server: ServerError,
};

function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_MODES, code);
}

const BY_STATUS: Record<number, string> = {
  400: 'invalid_input',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'task_not_waiting',
  410: 'feed_position_pruned',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'invalid_configuration',
  // What a proxy in front of the kernel answers in its own words: a limit, a kernel gone away.
  429: 'rate_limited',
  431: 'headers_too_large',
  503: 'unavailable',
};

/**
 * Builds the typed error for a server error body `{error: {code, detail, problems?}}`.
 * A body the SDK cannot read falls back on the HTTP status, and so does the class of a
 * code it does not know (kept as the error's `code`): a kernel newer than this SDK.
 */
export function errorFromBody(body: unknown, status: number | null, cause?: unknown): AirlockError {
  const error = (body as { error?: unknown } | null | undefined)?.error as
    | { code?: unknown; detail?: unknown; problems?: unknown }
    | undefined;
  let code = typeof error?.code === 'string' ? error.code : null;
  // A code the server could not attribute still has an honest status (tRPC's own 413, say).
  if ((code === null || code === 'internal') && status !== null && BY_STATUS[status]) {
    code = BY_STATUS[status]!;
  }
  const detail =
    typeof error?.detail === 'string' ? error.detail : `the server answered ${status ?? 'nothing'}`;
  const problems = Array.isArray(error?.problems) ? (error.problems as Problem[]) : undefined;
  const claim = lostClaim((error as { claim?: unknown } | undefined)?.claim);
  const ran = ranCall((error as { ran?: unknown } | undefined)?.ran);
  // A code this SDK does not know (a newer kernel's) takes the class of its status: a 409 is still a conflict.
  const modeOf = code && isErrorCode(code) ? code : status !== null ? BY_STATUS[status] : undefined;
  const Class = modeOf && isErrorCode(modeOf) ? BY_MODE[ERROR_MODES[modeOf]] : ServerError;
  return new Class({ code: code ?? 'internal', detail, status, problems, claim, ran, cause });
}

/**
 * The error for an answer of the kernel the SDK cannot read: a body that is
 * not JSON, a socket frame without the fields its contract declares. A
 * {@link ServerError} `internal`: the kernel (or what stands in front of it)
 * answered outside its contract, and trying again may not help.
 */
export function unreadableAnswer(
  detail: string,
  status: number | null,
  cause?: unknown,
): ServerError {
  return new ServerError({ code: 'internal', detail, status, cause });
}

/** A `not_claimable` body's `ran`, when it has the shape core declares; undefined otherwise. */
function ranCall(value: unknown): RanCall | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { output } = value as { output?: unknown };
  return typeof output === 'string' ? { output } : undefined;
}

/** A `lease_lost` body's `claim`, when it has the shape core declares; undefined otherwise. */
function lostClaim(value: unknown): LostClaim | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { task_state, committed } = value as { task_state?: unknown; committed?: unknown };
  if (typeof task_state !== 'string' || typeof committed !== 'boolean') return undefined;
  return { task_state: task_state as TaskState, committed };
}

function guard<T extends AirlockError>(name: string, Class: abstract new (...args: never[]) => T) {
  return (value: unknown): value is T =>
    value instanceof Class ||
    (typeof value === 'object' &&
      value !== null &&
      BRAND in value &&
      (value as { name?: unknown }).name === name);
}

/** True for any error the SDK throws. */
export const isAirlockError = (value: unknown): value is AirlockError =>
  value instanceof AirlockError || (typeof value === 'object' && value !== null && BRAND in value);
/** True for a {@link ValidationError}. */
export const isValidationError = guard('ValidationError', ValidationError);
/** True for an {@link UnauthorizedError}. */
export const isUnauthorizedError = guard('UnauthorizedError', UnauthorizedError);
/** True for a {@link ForbiddenError}. */
export const isForbiddenError = guard('ForbiddenError', ForbiddenError);
/** True for a {@link NotFoundError}. */
export const isNotFoundError = guard('NotFoundError', NotFoundError);
/** True for a {@link ConflictError}, a {@link LeaseLostError} included. */
export const isConflictError = (value: unknown): value is ConflictError =>
  guard('ConflictError', ConflictError)(value) || isLeaseLostError(value);
/** True for a {@link LeaseLostError}. */
export const isLeaseLostError = guard('LeaseLostError', LeaseLostError);
/** True for a {@link RequestRefusedError}. */
export const isRequestRefusedError = guard('RequestRefusedError', RequestRefusedError);
/** True for a {@link ServerError}. */
export const isServerError = guard('ServerError', ServerError);
/** True for a {@link FeedResyncError}. */
export const isFeedResyncError = guard('FeedResyncError', FeedResyncError);
/** True for a {@link DeadlineExceededError}. */
export const isDeadlineExceededError = guard('DeadlineExceededError', DeadlineExceededError);
/** True for a {@link ConnectionError}, a {@link DeadlineExceededError} included. */
export const isConnectionError = (value: unknown): value is ConnectionError =>
  guard('ConnectionError', ConnectionError)(value) || isDeadlineExceededError(value);
