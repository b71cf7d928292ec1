import { checkActionContract } from '../contracts/validate-contract.js';
import { checkLifecycleHooks } from '../hooks/validate-hooks.js';
import { ProblemList, pointerTo, type Validated } from '../issues/problem.js';
import { permissionConfigurationProblems } from '../permissions/validate-permissions.js';
import { ApprovalModeSchema } from '../schemas/approval.js';
import type { ProfileConfiguration } from '../schemas/profile.js';
import { CompiledPolicy, type Policy } from './policy.js';
import { checkToolNameText } from './tool-name-text.js';
import { checkEnvelope, checkRuleList, describe } from './validate-rules.js';

const PROFILE_KEYS = [
  'approval_mode',
  'approval_rules',
  'tool_names',
  'tool_aliases',
  'lifecycle_hooks',
  'tool_manifest',
  'permission_rule_set',
  'custom_rule_sets',
  'project_root',
  'action_contract',
];

/** A validated profile configuration and the policy compiled from its rules and aliases. */
export interface ValidProfile {
  readonly configuration: ProfileConfiguration;
  readonly policy: Policy;
}

/**
 * Validates a whole profile configuration declaration: its keys, mode, rule
 * list, tool names, aliases and lifecycle hooks, under the 64 KiB envelope.
 * Reports every problem with a JSON pointer; never throws.
 */
export function validateProfileConfiguration(input: unknown): Validated<ValidProfile> {
  const problems = new ProblemList();
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    problems.add(
      'configuration_not_object',
      '',
      `a profile configuration must be an object, not ${describe(input)}`,
    );
    return { ok: false, problems: problems.items };
  }
  // Past the envelope nothing else is read: a huge list would cost a problem per item.
  if (!checkEnvelope(input, '', problems)) return { ok: false, problems: problems.items };
  const fields = input as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!PROFILE_KEYS.includes(key)) {
      problems.add(
        'unknown_key',
        pointerTo('', key),
        `"${key}" is not a configuration key; use ${PROFILE_KEYS.join(', ')}`,
      );
    }
  }
  if (
    fields.approval_mode !== undefined &&
    !ApprovalModeSchema.safeParse(fields.approval_mode).success
  ) {
    problems.add(
      'mode_invalid',
      '/approval_mode',
      `approval_mode must be bypass, ask or rules, not ${describe(fields.approval_mode)}`,
    );
  }
  const rules =
    fields.approval_rules === undefined
      ? []
      : checkRuleList(fields.approval_rules, '/approval_rules', problems);
  checkToolNames(fields.tool_names, problems);
  const aliases = checkToolAliases(fields.tool_aliases, problems);
  if (fields.lifecycle_hooks !== undefined) {
    const hooks = checkLifecycleHooks(fields.lifecycle_hooks, '/lifecycle_hooks', problems);
    if (hooks && Object.keys(hooks).length > 0 && fields.approval_mode === undefined) {
      problems.add(
        'hooks_require_mode',
        '',
        'a profile that declares lifecycle_hooks must also declare approval_mode',
      );
    }
  }
  problems.items.push(...permissionConfigurationProblems(fields));
  if (fields.action_contract !== undefined) {
    checkActionContract(fields.action_contract, '/action_contract', problems);
  }
  if (!problems.empty || rules === null) return { ok: false, problems: problems.items };
  return {
    ok: true,
    value: {
      configuration: fields as ProfileConfiguration,
      policy: new CompiledPolicy(
        rules,
        aliases,
        (fields.tool_names as string[] | undefined) ?? null,
      ),
    },
  };
}

function checkToolNames(value: unknown, problems: ProblemList): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) {
    problems.add(
      'tool_names_invalid',
      '/tool_names',
      `tool_names must be an array of tool names, not ${describe(value)}`,
    );
    return;
  }
  value.forEach((name, index) => {
    if (typeof name !== 'string' || name === '') {
      problems.add(
        'tool_names_invalid',
        pointerTo('/tool_names', index),
        `a tool name must be nonempty text, not ${describe(name)}`,
      );
    } else {
      checkToolNameText(name, pointerTo('/tool_names', index), problems);
    }
  });
}

function checkToolAliases(value: unknown, problems: ProblemList): Record<string, string> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    problems.add(
      'tool_aliases_invalid',
      '/tool_aliases',
      `tool_aliases must map names to names, not ${describe(value)}`,
    );
    return {};
  }
  const aliases: Record<string, string> = {};
  for (const [alias, target] of Object.entries(value)) {
    if (typeof target !== 'string' || target === '' || alias === '') {
      problems.add(
        'tool_aliases_invalid',
        pointerTo('/tool_aliases', alias),
        `an alias must map a nonempty name to a nonempty tool name, not ${describe(target)}`,
      );
    } else if (
      // Both sides are names a person reads: the wire name the model sends, the name that runs.
      [
        checkToolNameText(alias, pointerTo('/tool_aliases', alias), problems),
        checkToolNameText(target, pointerTo('/tool_aliases', alias), problems),
      ].every(Boolean)
    ) {
      aliases[alias] = target;
    }
  }
  return aliases;
}
