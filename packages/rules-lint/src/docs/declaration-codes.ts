import type { ProblemCode } from '@airlock/core';
import type { PolicyTextCode } from '../policy-text.js';
import type { RequestGuardCode } from '../request-guard.js';
import type { INEXACT_NUMBER } from '../source/inexact-number-findings.js';

/** Codes `rules-lint` adds for a file's `examples` (checked by `check`, run by `test`). */
export const EXAMPLE_CODES = ['examples_not_array', 'example_invalid', 'example_failed'] as const;

/**
 * One sentence per declaration code (core's validator) and example code:
 * what the kernel refuses, for SARIF descriptions, hovers and the docs page.
 * A test checks every code of core has one.
 */
export const DECLARATION_CODE_DESCRIPTIONS: Readonly<
  Record<
    | ProblemCode
    | PolicyTextCode
    | RequestGuardCode
    | typeof INEXACT_NUMBER
    | (typeof EXAMPLE_CODES)[number],
    string
  >
> = {
  inexact_number:
    'A number no JSON reader takes as written: an integer past 2^53 (9007199254740993 reads as 9007199254740992) or a number past the largest double (read as Infinity). The kernel refuses the file sent as written (`invalid_json`), and a tool that parses the file first sends other digits without a word; write such a value as a string.',
  input_too_deep:
    'A profile nests arrays and objects deeper than 64 levels (the profile itself is level 1): the kernel refuses such a request before reading it, whatever it holds. The pointer names the first value past the bound.',
  unrecognized_keys:
    "A `__proto__` key, anywhere in a profile (inside a tool's input_schema too): the kernel refuses it at any depth, since it would reach an object's prototype rather than its data.",
  not_unicode:
    'A text or key holds a lone UTF-16 surrogate (written as a `\\uD800`-style escape), which has no UTF-8 form; the kernel refuses the declaration before validating it.',
  holds_nul:
    'A `reason` or a contract constraint holds NUL (`\\u0000`), which a person would read as U+FFFD; the kernel refuses the declaration before validating it (a pattern may hold NUL).',
  tool_manifest_invalid:
    "`tool_manifest` is not a list of tools with a name, an input_schema object, known risk traits and JSON-pointer targets (or it declares a name twice), or an input_schema has a shape the kernel refuses because checking calls against it would hold up the kernel: `uniqueItems` over items not all of a scalar type without a `maxItems` of at most 1000, a `pattern` or `patternProperties` key longer than 1024 characters or whose counted repetitions add up past 256, or more than 3000 JSON values besides annotations. A key under `properties` (or another map of names) is a name, so a property called `default` or `enum` is checked as a subschema. Whether a schema compiles (its draft's meta-schema, a pattern the kernel's linear-time engine refuses such as a backreference) is checked by the kernel alone.",
  permission_rule_invalid:
    'A permission rule has a pattern that cannot match: an absolute or non-canonical rooted target pattern, a glob that does not compile, an argument key that is no JSON pointer, or a guardrail outside a user overlay or one that allows.',
  rule_set_invalid:
    'A custom rule set (or `permission_rule_set`) is malformed; the kernel would fall back to Baseline when it is selected.',
  overlay_document_invalid:
    'An overlay document must be an array of groups `{ruleSetId, rules}` and nothing else.',
  project_root_invalid: '`project_root` must be an absolute POSIX path.',
  not_serializable:
    'The declaration is not plain JSON data (a function, a cycle, a non-finite number).',
  envelope_too_large: 'The declaration is larger than the 64 KiB envelope the kernel accepts.',
  configuration_not_object: 'A profile configuration must be a JSON object.',
  unknown_key:
    'A key the declaration does not define, such as a seventh key on a rule; the kernel refuses it rather than ignore it.',
  mode_invalid: '`approval_mode` must be bypass, ask or rules.',
  rules_not_array: '`approval_rules` must be a JSON array of rules.',
  rule_not_object: 'Each rule must be a JSON object.',
  tool_missing: 'A rule needs `tool`: the `|`-separated globs of the tool names it addresses.',
  tool_not_string: '`tool` must be text.',
  tool_alternative_empty:
    '`tool` has an empty alternative (`bash|` or `||`), which would match the empty tool name.',
  verdict_missing: 'A rule needs `verdict`: allow, ask or deny.',
  verdict_invalid: '`verdict` must be allow, ask or deny.',
  origin_invalid: '`origin` must be model, author or kernel.',
  path_not_string: '`path` must be text: a dotted key path into the tool input.',
  path_segment_empty: '`path` has an empty segment (`a..b`, a leading or trailing dot).',
  match_not_string: '`match` must be text: an anchored glob.',
  match_without_path: '`match` needs `path`: the glob applies to the text found at that path.',
  reason_not_string: '`reason` must be text.',
  glob_invalid:
    'A glob has no UTF-8 form (it holds a lone UTF-16 surrogate), so it cannot match anything.',
  glob_too_complex:
    'A part of a glob between two stars holds a `?` and is longer than 256 bytes with more than three literal runs between its `?`s; matching it would be slow on long texts.',
  tool_names_invalid: '`tool_names` must be an array of non-empty tool names.',
  tool_aliases_invalid:
    '`tool_aliases` must map non-empty wire names to non-empty execution names.',
  tool_name_hidden_character:
    'A declared tool name (in `tool_names`, `tool_aliases` or `tool_manifest`) holds a character that changes how it reads without showing itself: a C0 or C1 control (tab and newline included), DEL, a bidirectional control or a zero-width character. A person approving a call would read another name than the one that runs.',
  hooks_not_object: '`lifecycle_hooks` must be an object keyed by event.',
  hooks_require_mode: 'A profile that declares `lifecycle_hooks` must declare `approval_mode` too.',
  hook_event_unknown:
    'A lifecycle hook event other than turn_start, pre_compact, post_compact and stop.',
  hook_not_object: 'A lifecycle hook must be an object.',
  hook_key_unknown: 'A key a lifecycle hook does not define.',
  hook_tool_missing: 'A lifecycle hook needs `tool`: the executor tool it runs.',
  hook_timeout_missing: 'A lifecycle hook needs `timeout_ms`.',
  hook_timeout_invalid: '`timeout_ms` must be a positive whole number within the bound.',
  hook_max_continuations_missing: 'A stop hook needs `max_continuations`.',
  hook_max_continuations_invalid: '`max_continuations` must be a whole number within the bound.',
  hook_result_not_object: 'A hook result must be an object.',
  hook_result_key_unknown: 'A key a hook result does not define.',
  hook_result_continue_invalid: '`continue` of a hook result must be true or false.',
  hook_result_continue_not_allowed: 'Only a stop hook may ask to continue.',
  hook_result_feedback_missing: 'A hook result that continues needs `feedback`.',
  hook_result_feedback_invalid: '`feedback` must be text.',
  hook_result_feedback_not_allowed: '`feedback` is only read when the hook continues.',
  examples_not_array: '`examples` must be an array of {tool, input?, origin?, mode?, expect}.',
  example_invalid:
    'An example is malformed: a missing tool or expect, an unknown key, or a bad origin or mode.',
  example_failed: "An example's decision differs from its `expect`.",
  contract_not_object: 'An action contract must be an object.',
  contract_key_unknown: 'A key an action contract (or one of its sections) does not define.',
  contract_version_invalid: '`contract_version` must be a positive whole number.',
  contract_enforcement_invalid: '`enforcement` must be shadow or balanced.',
  contract_list_invalid: 'An action-contract list must be an array of rule strings.',
  contract_rule_invalid:
    'An action-contract rule must be `action:<tag>`, `tool:<name>` or `command-prefix:<text>`.',
  contract_action_tag_unknown:
    'An `action:` rule names a tag the classifier does not produce (e.g. `install-local` for `install_local`).',
  contract_constraints_invalid: 'Natural-language constraints must be a list of non-empty strings.',
  approval_policy_not_object:
    'An approval policy must be a JSON object with `groups`, `rules` and `no_self_approval`.',
  approval_policy_key_unknown:
    'A key an approval policy or one of its rules does not define; the kernel refuses it rather than ignore it.',
  approval_group_invalid:
    'An approval group needs a name of a-z, 0-9, _ and - and a non-empty list of member credential ids.',
  approval_rule_invalid:
    'An approval rule has a tool glob, action tags, rule set, application or `required` count the kernel cannot use.',
  approval_approver_unknown:
    'An approver is neither a member credential of the workspace nor a `group:NAME` the policy defines.',
  approval_approver_revoked:
    'An approver names a member credential that was revoked: it can no longer approve, so the kernel refuses the policy rather than count on it.',
  approval_quorum_unreachable:
    'A rule asks for more approvals (`required`) than the distinct members its `approvers` name: no call it covers could ever be approved.',
};

/** The description of a declaration or example code, or a generic sentence for a code not in the table. */
export function describeDeclarationCode(code: string): string {
  if (code === 'unused-suppression')
    return 'A rules-lint-disable-next-line comment that silences nothing, or names something that is not a lint rule.';
  return (
    (DECLARATION_CODE_DESCRIPTIONS as Readonly<Record<string, string>>)[code] ??
    `The kernel refuses the declaration: ${code}.`
  );
}
