import { z } from 'zod';

/**
 * The codes the kernel itself writes on a failed, expired or canceled row, or
 * on an ended run. An executor's own failure codes are free text beside these.
 */
export const ROW_FAILURE_CODES = [
  'approval_denied',
  'approval_expired',
  'question_expired',
  'invalid_question',
  'declined',
  'hook_timed_out',
  'invalid_hook_result',
  'hook_requires_model',
  'max_continuations_exceeded',
  'summary_failed',
  'outcome_unknown',
  'not_run',
  'tool_failed',
  'call_mismatch',
  'canceled',
  'abandoned',
  'agent_application_removed',
  'run_write_refused',
  'refused_rounds_exceeded',
  'max_rounds_exceeded',
  // A run's model provider: what it answered, or why it was not asked.
  'provider_base_url_refused',
  'provider_content_filtered',
  'provider_error',
  'provider_external',
  'provider_misconfigured',
  'provider_rate_limited',
  'provider_refused',
  'provider_response_too_large',
  'provider_timeout',
  'provider_too_many_calls',
  'provider_truncated',
  'provider_unknown',
  'provider_unreachable',
  // The scripted provider (tests, demos): its list ran out, or the model's input was not the one it expected.
  'script_exhausted',
  'script_expectation_failed',
] as const;

/** A failure code the kernel writes. */
export type RowFailureCode = (typeof ROW_FAILURE_CODES)[number];

/** `{code, detail}` of a failed row or run: a kernel code or an executor's own. */
export const FailureSchema = z.object({
  code: z.string().describe(`a kernel code (${ROW_FAILURE_CODES.join(', ')}) or an executor's own`),
  detail: z.string(),
});
/** `{code, detail}` of a failed row or run. */
export type Failure = z.infer<typeof FailureSchema>;
