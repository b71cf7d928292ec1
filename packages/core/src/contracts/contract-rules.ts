import { ACTION_TAGS, type ActionTag } from '../classify/tags.js';
import { commandStartsWith, SimpleCommands } from './command-prefix.js';

/** The four rule lists of an action contract, in precedence order (spec 004). */
export const CONTRACT_LISTS = ['forbidden', 'must_not', 'requires_user', 'allowed'] as const;
/** One rule list of an action contract. */
export type ContractList = (typeof CONTRACT_LISTS)[number];

/** Where each list lives in the declaration. */
export const LIST_PATHS: Record<ContractList, readonly [string, string]> = {
  forbidden: ['authorization', 'forbidden'],
  must_not: ['must_and_must_not', 'must_not'],
  requires_user: ['authorization', 'requires_user'],
  allowed: ['authorization', 'allowed'],
};

/** A structured rule, parsed: its form and the lowercase value it matches. */
export interface ContractRule {
  readonly list: ContractList;
  /** The rule's 0-based index in its list. */
  readonly index: number;
  readonly form: 'action' | 'tool' | 'command-prefix';
  /** For `action:` the canonical tag; otherwise the text to match, lowercase. */
  readonly value: string;
  /** The rule as its author wrote it. */
  readonly text: string;
}

/** Accepted spellings of a tag beside the canonical ones. */
const TAG_ALIASES: Record<string, ActionTag> = {
  write_workspace: 'write',
  external_side_effect: 'external',
};

/** Every spelling an `action:` rule accepts. */
export const ACCEPTED_TAGS: readonly string[] = [...ACTION_TAGS, ...Object.keys(TAG_ALIASES)];

/** A rule that does not parse: why, and the supported form when one is close. */
export interface RuleProblem {
  readonly code: 'contract_rule_invalid' | 'contract_action_tag_unknown';
  readonly message: string;
}

function unknownTag(tag: string, text: string): RuleProblem {
  const normalized = tag.replace(/[-\s]+/g, '_');
  const close = ACCEPTED_TAGS.includes(normalized) ? normalized : null;
  return {
    code: 'contract_action_tag_unknown',
    message: close
      ? `"${text}" names no supported action tag; use the documented form action:${close}`
      : `"${text}" names no supported action tag; use one of ${ACCEPTED_TAGS.map((t) => `action:${t}`).join(', ')}`,
  };
}

/**
 * Parses one rule text (`action:<tag>`, `tool:<name>`, `command-prefix:<text>`,
 * prefixes matched case-insensitively) into a rule, or says what is wrong.
 */
export function parseContractRule(
  text: string,
  list: ContractList,
  index: number,
): ContractRule | RuleProblem {
  const colon = text.indexOf(':');
  const prefix = colon < 0 ? '' : text.slice(0, colon).trim().toLowerCase();
  const rest = colon < 0 ? '' : text.slice(colon + 1);
  if (prefix === 'action') {
    const tag = rest.trim().toLowerCase();
    // An own key only: `constructor` and `__proto__` are no tags, though every object answers them.
    const alias = Object.hasOwn(TAG_ALIASES, tag) ? TAG_ALIASES[tag] : undefined;
    const canonical = alias ?? (ACTION_TAGS as readonly string[]).find((t) => t === tag);
    if (!canonical) return unknownTag(tag, text);
    return { list, index, form: 'action', value: canonical, text };
  }
  if (prefix === 'tool' || prefix === 'command-prefix') {
    const value = prefix === 'tool' ? rest.trim() : rest.trimStart();
    if (value === '') {
      return { code: 'contract_rule_invalid', message: `"${text}" has nothing after "${prefix}:"` };
    }
    return { list, index, form: prefix, value: value.toLowerCase(), text };
  }
  return {
    code: 'contract_rule_invalid',
    message: `"${text}" is not a structured rule; write action:<tag>, tool:<name> or command-prefix:<text>`,
  };
}

/** What a rule is matched against: the resolved tool name, the shell command and its tags. */
export interface ContractSubject {
  readonly toolName: string;
  /** Every shell command the call carries (`command`, `cmd`, `script`, `argv`...); empty for none. */
  readonly commands: readonly string[];
  readonly tags: readonly ActionTag[];
  /** The simple commands of `commands`, read on demand (command-prefix.ts). */
  readonly simpleCommands?: SimpleCommands;
}

/** Whether one rule matches a call (case-insensitively). */
export function ruleMatches(rule: ContractRule, subject: ContractSubject): boolean {
  switch (rule.form) {
    case 'action':
      return subject.tags.includes(rule.value as ActionTag);
    case 'tool':
      return subject.toolName.toLowerCase() === rule.value;
    case 'command-prefix': {
      if (rule.list === 'allowed') {
        return subject.commands.some((command) => commandStartsWith(command, rule.value));
      }
      const simple = subject.simpleCommands ?? new SimpleCommands();
      return subject.commands.some((command) => simple.blockingMatch(command, rule.value));
    }
  }
}
