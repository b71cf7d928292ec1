import { carriedTags, commandsCarried } from '../classify/effect-profile.js';
import type { ActionTag } from '../classify/tags.js';
import type { LayerDecision } from '../schemas/layers.js';
import { SimpleCommands } from './command-prefix.js';
import {
  type ContractRule,
  type ContractSubject,
  LIST_PATHS,
  ruleMatches,
} from './contract-rules.js';
import type { ActionContract } from './validate-contract.js';

/** Actions that carry the contract's constraints as a reminder even when allowed (spec 004). */
export const HIGH_RISK_TAGS: readonly ActionTag[] = [
  'destructive',
  'publish',
  'external',
  'install_local',
];

/** A call as the contract reads it. */
export interface ContractCall {
  /** The resolved tool name (runner qualification and aliases applied). */
  readonly toolName: string;
  readonly toolInput: unknown;
  /** Input fields the tool's manifest marks as shell commands (JSON pointers). */
  readonly commandPointers?: readonly string[];
  /** Top-level fields holding a patch's text, which no rule reads as a command (core's patchTextFields). */
  readonly patchFields?: readonly string[];
}

/** Where a rule sits in the declaration, for a person and the model to read. */
export function ruleLocation(rule: ContractRule): string {
  const [group, key] = LIST_PATHS[rule.list];
  return `${group}.${key}[${rule.index}] \`${rule.text}\``;
}

function describeSubject(subject: ContractSubject): string {
  return subject.commands.length === 0
    ? `tool ${subject.toolName}`
    : `tags: ${subject.tags.join(', ') || 'none'}`;
}

/** The first matching rule in precedence order: forbidden, must_not, requires_user, allowed. */
export function firstMatchingRule(
  contract: ActionContract,
  subject: ContractSubject,
): ContractRule | null {
  return contract.rules.find((rule) => ruleMatches(rule, subject)) ?? null;
}

/** The tool name, shell command and action tags a contract matches a call on. */
export function contractSubject(call: ContractCall): ContractSubject {
  const carried = commandsCarried(call.toolInput, call.commandPointers, call.patchFields);
  // The segments read for the tags serve the `command-prefix:` rules too: each command is read once.
  const simpleCommands = new SimpleCommands();
  return {
    toolName: call.toolName,
    commands: carried.commands,
    tags: carriedTags(carried, simpleCommands.remember),
    simpleCommands,
  };
}

function constraintReminder(contract: ActionContract, subject: ContractSubject): string | null {
  const risky = subject.tags.filter((tag) => HIGH_RISK_TAGS.includes(tag));
  if (contract.constraints.length === 0 || risky.length === 0) return null;
  const constraints = contract.constraints.map((text) => `"${text}"`).join('; ');
  return `Reminder: this call is high-risk (${risky.join(', ')}); the action contract asks: ${constraints}.`;
}

/**
 * Decides a call under an action contract (spec 004), as one policy layer:
 * the first matching rule in precedence order decides. Under `balanced`,
 * forbidden and must_not refuse naming the rule, requires_user asks a
 * person, allowed allows (it grants nothing another layer refuses or parks).
 * Under `shadow`, a would-refuse or would-ask becomes a reminder and the
 * layer allows. A high-risk call carries the contract's natural-language
 * constraints as a reminder whatever the verdict. Null when no rule matches
 * and there is nothing to remind.
 */
export function evaluateActionContract(
  contract: ActionContract,
  call: ContractCall,
): LayerDecision | null {
  const subject = contractSubject(call);
  const rule = firstMatchingRule(contract, subject);
  const reminders: string[] = [];
  const constraint = constraintReminder(contract, subject);
  if (rule === null && constraint === null) return null;
  const ref = rule && {
    index: rule.index,
    list: rule.list,
    text: rule.text,
    contract_version: contract.contract_version,
  };
  const version = `action contract v${contract.contract_version}`;
  let verdict: LayerDecision['verdict'] = 'allow';
  let detail: string | null = null;
  if (
    rule &&
    (rule.list === 'forbidden' || rule.list === 'must_not' || rule.list === 'requires_user')
  ) {
    const asks = rule.list === 'requires_user';
    const said = asks
      ? `${version} requires a person's answer for this call: ${ruleLocation(rule)} matches (${describeSubject(subject)})`
      : `refused by ${version}: ${ruleLocation(rule)} matches (${describeSubject(subject)})`;
    if (contract.enforcement === 'balanced') {
      verdict = asks ? 'ask' : 'deny';
      detail = said;
    } else {
      detail = `shadow: ${said}`;
      reminders.push(
        `Reminder (${version}, shadow mode): ${asks ? "this call would have needed a person's answer" : 'this call would have been refused'}: ${ruleLocation(rule)} matches (${describeSubject(subject)}). It ran because the contract is not enforced yet.`,
      );
    }
  } else if (rule) {
    detail = `allowed by ${version}: ${ruleLocation(rule)}`;
  }
  if (constraint !== null) reminders.push(constraint);
  return { layer: 'action_contract', verdict, rule: ref, detail, reminders };
}
