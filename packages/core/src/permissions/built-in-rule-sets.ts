import type { PermissionRule, RiskTrait } from '../schemas/permissions.js';

/**
 * The capabilities spec 003 names, each as the risk traits that carry it.
 * docs/permissions.md prints this table; the built-in sets below are written
 * over it and nothing else.
 */
export const CAPABILITY_TRAITS = {
  interaction: ['interaction'],
  local_inspection: ['read'],
  delegation: ['delegate'],
  research: ['read', 'network'],
  plan_file_writes: ['plan_write'],
  local_analysis_commands: ['execute'],
  mutations: ['write', 'delete', 'destructive'],
  network: ['network'],
} as const satisfies Record<string, readonly RiskTrait[]>;

/** A built-in rule set: an ordered list where the first matching rule decides. */
export interface BuiltInRuleSet {
  readonly id: 'read_only' | 'supervised' | 'autonomous' | 'planning';
  readonly version: string;
  readonly description: string;
  readonly rules: readonly PermissionRule[];
}

const traits = (...capabilities: (keyof typeof CAPABILITY_TRAITS)[]): RiskTrait[] => [
  ...new Set(capabilities.flatMap((capability) => CAPABILITY_TRAITS[capability])),
];

/** The ids of the built-in sets. */
export const BUILT_IN_RULE_SET_IDS = ['read_only', 'supervised', 'autonomous', 'planning'] as const;

/** The four built-in rule sets of spec 003. */
export const BUILT_IN_RULE_SETS: Readonly<Record<BuiltInRuleSet['id'], BuiltInRuleSet>> = {
  read_only: {
    id: 'read_only',
    version: '1',
    description:
      'Allows interaction, local inspection and delegation; denies every other capability.',
    rules: [
      {
        verdict: 'deny',
        risks: traits('mutations', 'local_analysis_commands', 'network', 'plan_file_writes'),
        reason: 'the read_only rule set allows interaction, local inspection and delegation only',
      },
      { verdict: 'allow', risks: traits('interaction', 'local_inspection', 'delegation') },
      {
        verdict: 'deny',
        reason: 'the read_only rule set allows interaction, local inspection and delegation only',
      },
    ],
  },
  supervised: {
    id: 'supervised',
    version: '1',
    description: 'Allows interaction and local inspection; asks a person for everything else.',
    rules: [
      {
        verdict: 'ask',
        risks: traits(
          'mutations',
          'local_analysis_commands',
          'network',
          'plan_file_writes',
          'delegation',
        ),
        reason: 'the supervised rule set asks before anything beyond inspection',
      },
      { verdict: 'allow', risks: traits('interaction', 'local_inspection') },
      { verdict: 'ask', reason: 'the supervised rule set asks before anything beyond inspection' },
    ],
  },
  autonomous: {
    id: 'autonomous',
    version: '1',
    description: 'Allows every valid request unless an overlay or a guardrail decides otherwise.',
    rules: [{ verdict: 'allow' }],
  },
  planning: {
    id: 'planning',
    version: '1',
    description:
      'Allows research, interaction, delegation and plan-file writes; asks for local analysis commands; denies other mutations.',
    rules: [
      {
        verdict: 'deny',
        risks: traits('mutations'),
        reason: 'the planning rule set writes plan files only',
      },
      {
        verdict: 'ask',
        risks: traits('local_analysis_commands'),
        reason: 'the planning rule set asks before running local analysis commands',
      },
      {
        verdict: 'allow',
        risks: traits('research', 'interaction', 'delegation', 'plan_file_writes'),
      },
      { verdict: 'deny', reason: 'the planning rule set does not allow this capability' },
    ],
  },
};

/** True when an id names a built-in set. */
export function isBuiltInRuleSetId(id: string): id is BuiltInRuleSet['id'] {
  return (BUILT_IN_RULE_SET_IDS as readonly string[]).includes(id);
}
