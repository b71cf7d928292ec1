import { z } from 'zod';
import { named } from './registry.js';
import { TaskStateSchema } from './views.js';

/**
 * Every error code the kernel answers with, beside its HTTP status: the one
 * closed table of the wire. The server, the SDK and the OpenAPI document read
 * it from here.
 */
export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_input: 400,
  unauthenticated: 401,
  forbidden: 403,
  approver_not_allowed: 403,
  self_approval_refused: 403,
  // Governance: a member credential whose role may not do this (an approver managing the workspace).
  admin_required: 403,
  not_found: 404,
  run_not_found: 404,
  task_not_found: 404,
  conversation_not_found: 404,
  credential_not_found: 404,
  agent_application_not_found: 404,
  delivery_not_found: 404,
  method_not_allowed: 405,
  task_not_waiting: 409,
  // A retry the row's failure forbids (an invalid question) or the approval stage refuses again.
  retry_refused: 409,
  // An approve of a parked call the approval stage refuses as it stands now (a guardrail added since).
  approval_refused: 409,
  not_claimable_kind: 409,
  not_claimable: 409,
  lease_lost: 409,
  run_not_running: 409,
  no_profile_configuration: 409,
  contract_version_not_higher: 409,
  run_not_gateway: 409,
  run_busy: 409,
  // A hooked call asked about by its call id or key that is not the call its row holds.
  call_mismatch: 409,
  // Removing an application would fence the member credentials of it and lock those members out.
  application_has_member_credentials: 409,
  // Revoking the workspace's last active admin member credential would leave no one to govern it.
  last_admin: 409,
  // A credential's label that names another active credential of the workspace (case- and width-folded).
  label_taken: 409,
  stale_digest: 409,
  delivery_in_flight: 409,
  // Retention (issue 29): a feed resumed from a position whose events were pruned.
  feed_position_pruned: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  invalid_configuration: 422,
  tightening_widens: 422,
  invalid_question: 422,
  invalid_resolution: 422,
  remember_unavailable: 422,
  edit_refused: 422,
  // Hardening (issue 11): refused input, stale decisions, rate limits.
  input_too_deep: 400,
  request_timeout: 408,
  // Request headers past what Node's HTTP parser reads (16 KiB unless --max-http-header-size).
  headers_too_large: 431,
  version_mismatch: 409,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
  // Durability (issue 29): the store cannot take a write now (disk full, read-only), and
  // GET /readyz on a store that lacks a migration.
  store_unavailable: 503,
  migrations_pending: 503,
} as const;

/** A stable error code from {@link ERROR_STATUS}. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** Every error code, in table order. */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** The error code as a schema. */
export const ErrorCodeSchema = z.enum(ERROR_CODES);

/**
 * Codes any operation can answer, whatever it does: the request could not be
 * read, the token is wrong, or the kernel failed.
 */
export const COMMON_ERROR_CODES = [
  'invalid_json',
  'invalid_input',
  'input_too_deep',
  'unauthenticated',
  'forbidden',
  'request_timeout',
  'headers_too_large',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'internal',
  'unavailable',
  'store_unavailable',
] as const satisfies readonly ErrorCode[];

/** The common codes only a request with a body can answer (never a GET). */
export const BODY_ERROR_CODES = [
  'invalid_json',
  'input_too_deep',
  'payload_too_large',
  'unsupported_media_type',
] as const satisfies readonly (typeof COMMON_ERROR_CODES)[number][];

/** One validation problem: a stable code, a JSON pointer to the culprit and a message. */
export const ProblemDetailSchema = z.object({
  code: z.string(),
  pointer: z.string(),
  message: z.string(),
});
/** One validation problem. */
export type ProblemDetail = z.infer<typeof ProblemDetailSchema>;

/**
 * What a `lease_lost` refusal says of the row its claim no longer holds, so
 * an executor whose commit's answer was lost can tell that the commit landed
 * without reading the detail's wording.
 */
export const LostClaimSchema = named(
  z.object({
    task_state: TaskStateSchema,
    committed: z.boolean(),
  }),
  {
    id: 'LostClaim',
    description:
      "What a lease_lost refusal says of the row: `task_state`, the row's state now; `committed`, true when the row holds an outcome committed with the claim presented (an earlier commit of that claim landed, and nothing ran the row again since).",
  },
);
/** What a `lease_lost` refusal says of the row its claim no longer holds. */
export type LostClaim = z.infer<typeof LostClaimSchema>;

/**
 * What a `not_claimable` refusal of a hooked call that already ran says of
 * it: the output committed to its row, so a framework that runs the same
 * call again (LangGraph's tool node on a resume) hands the model what the
 * call returned instead of running it twice.
 */
export const RanCallSchema = named(z.object({ output: z.string() }), {
  id: 'RanCall',
  description:
    'What a not_claimable refusal of a call that already ran says of it: `output`, the text committed to its row.',
});
/** What a `not_claimable` refusal of a call that already ran says of it. */
export type RanCall = z.infer<typeof RanCallSchema>;

/**
 * The body of every failure: `{error: {code, detail, problems?, claim?, ran?}}`; `claim` comes
 * with `lease_lost` only, `ran` with `not_claimable` of a hooked call that already ran.
 */
export const ErrorBodySchema = z.object({
  error: z.object({
    code: ErrorCodeSchema,
    detail: z.string(),
    problems: z.array(ProblemDetailSchema).optional(),
    claim: LostClaimSchema.optional(),
    ran: RanCallSchema.optional(),
  }),
});
/** The body of every failure. */
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** The HTTP status of an error code. */
export function errorStatus(code: ErrorCode): number {
  return ERROR_STATUS[code];
}
