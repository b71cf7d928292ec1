/** Every code a validator can report, one per distinct mistake. */
export const PROBLEM_CODES = [
  'not_serializable',
  'envelope_too_large',
  'configuration_not_object',
  'unknown_key',
  'mode_invalid',
  'rules_not_array',
  'rule_not_object',
  'tool_missing',
  'tool_not_string',
  'tool_alternative_empty',
  'verdict_missing',
  'verdict_invalid',
  'origin_invalid',
  'path_not_string',
  'path_segment_empty',
  'match_not_string',
  'match_without_path',
  'reason_not_string',
  'glob_invalid',
  'glob_too_complex',
  'tool_names_invalid',
  'tool_aliases_invalid',
  'tool_name_hidden_character',
  'hooks_not_object',
  'hooks_require_mode',
  'hook_event_unknown',
  'hook_not_object',
  'hook_key_unknown',
  'hook_tool_missing',
  'hook_timeout_missing',
  'hook_timeout_invalid',
  'hook_max_continuations_missing',
  'hook_max_continuations_invalid',
  'hook_result_not_object',
  'hook_result_key_unknown',
  'hook_result_continue_invalid',
  'hook_result_continue_not_allowed',
  'hook_result_feedback_missing',
  'hook_result_feedback_invalid',
  'hook_result_feedback_not_allowed',
  'tool_manifest_invalid',
  'permission_rule_invalid',
  'rule_set_invalid',
  'overlay_document_invalid',
  'project_root_invalid',
  // Action contracts (spec 004).
  'contract_not_object',
  'contract_key_unknown',
  'contract_version_invalid',
  'contract_enforcement_invalid',
  'contract_list_invalid',
  'contract_rule_invalid',
  'contract_action_tag_unknown',
  'contract_constraints_invalid',
  // Approval policies (issue 27).
  'approval_policy_not_object',
  'approval_policy_key_unknown',
  'approval_group_invalid',
  'approval_rule_invalid',
  'approval_approver_unknown',
  'approval_approver_revoked',
  'approval_quorum_unreachable',
] as const;

/** A stable, machine-readable name for one kind of validation problem. */
export type ProblemCode = (typeof PROBLEM_CODES)[number];

/** One thing wrong with a declaration: what, where (a JSON pointer, '' for the root) and why. */
export interface Problem {
  readonly code: ProblemCode;
  readonly pointer: string;
  readonly message: string;
}

/** The outcome of a validator: the checked value, or every problem found. */
export type Validated<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly problems: readonly Problem[] };

/** Builds a successful validation result. */
export function valid<T>(value: T): Validated<T> {
  return { ok: true, value };
}

/** Builds a failed validation result from at least one problem. */
export function invalid<T>(problems: readonly Problem[]): Validated<T> {
  return { ok: false, problems };
}

function escapeToken(token: string | number): string {
  return String(token).replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Appends one escaped reference token to a JSON pointer (RFC 6901). */
export function pointerTo(base: string, token: string | number): string {
  return `${base}/${escapeToken(token)}`;
}

/** Builds a JSON pointer (RFC 6901) from tokens, escaping `~` and `/`; no tokens is the root ''. */
export function pointerFrom(tokens: readonly (string | number)[]): string {
  return tokens.map((token) => `/${escapeToken(token)}`).join('');
}

/** Splits a JSON pointer (RFC 6901) into its unescaped tokens ('' is the root). */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** Collects problems while a validator walks a declaration. */
export class ProblemList {
  readonly items: Problem[] = [];

  add(code: ProblemCode, pointer: string, message: string): void {
    this.items.push({ code, pointer, message });
  }

  get empty(): boolean {
    return this.items.length === 0;
  }
}
