import { ProblemList, pointerTo, type Validated } from '../issues/problem.js';
import { describe } from '../rules/validate-rules.js';
import {
  CONTRACT_LISTS,
  type ContractRule,
  LIST_PATHS,
  parseContractRule,
} from './contract-rules.js';

/** A validated action contract, its rules parsed in precedence order. */
export interface ActionContract {
  readonly contract_version: number;
  readonly enforcement: 'shadow' | 'balanced';
  /** Every rule, forbidden first, then must_not, requires_user, allowed; each list in order. */
  readonly rules: readonly ContractRule[];
  /** Natural-language constraints, read by the model as reminders; never enforced. */
  readonly constraints: readonly string[];
}

const TOP_KEYS = [
  'contract_version',
  'enforcement',
  'authorization',
  'must_and_must_not',
  'constraints',
];
const GROUP_KEYS: Record<string, readonly string[]> = {
  authorization: ['forbidden', 'requires_user', 'allowed'],
  must_and_must_not: ['must_not'],
};

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function checkKeys(
  value: Record<string, unknown>,
  allowed: readonly string[],
  pointer: string,
  problems: ProblemList,
): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      problems.add(
        'contract_key_unknown',
        pointerTo(pointer, key),
        `"${key}" is not an action contract key here; use ${allowed.join(', ')}`,
      );
    }
  }
}

function checkGroups(
  contract: Record<string, unknown>,
  pointer: string,
  problems: ProblemList,
): ContractRule[] {
  for (const [group, keys] of Object.entries(GROUP_KEYS)) {
    const value = contract[group];
    if (value === undefined) continue;
    if (!isObject(value)) {
      problems.add(
        'contract_list_invalid',
        pointerTo(pointer, group),
        `${group} must be an object of rule lists, not ${describe(value)}`,
      );
    } else checkKeys(value, keys, pointerTo(pointer, group), problems);
  }
  const rules: ContractRule[] = [];
  for (const list of CONTRACT_LISTS) {
    const [group, key] = LIST_PATHS[list];
    const holder = contract[group];
    if (!isObject(holder) || holder[key] === undefined) continue;
    const listPointer = pointerTo(pointerTo(pointer, group), key);
    const items = holder[key];
    if (!Array.isArray(items)) {
      problems.add(
        'contract_list_invalid',
        listPointer,
        `${group}.${key} must be an array of rules, not ${describe(items)}`,
      );
      continue;
    }
    items.forEach((item, index) => {
      if (typeof item !== 'string') {
        problems.add(
          'contract_rule_invalid',
          pointerTo(listPointer, index),
          `a rule is text such as "action:destructive", not ${describe(item)}`,
        );
        return;
      }
      const parsed = parseContractRule(item, list, index);
      if ('code' in parsed)
        problems.add(parsed.code, pointerTo(listPointer, index), parsed.message);
      else rules.push(parsed);
    });
  }
  return rules;
}

function checkConstraints(value: unknown, pointer: string, problems: ProblemList): string[] {
  if (value === undefined) return [];
  const texts = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(texts)) {
    problems.add(
      'contract_constraints_invalid',
      pointer,
      `constraints must be text or an array of texts, not ${describe(value)}`,
    );
    return [];
  }
  texts.forEach((text, index) => {
    if (typeof text !== 'string' || text.trim() === '') {
      problems.add(
        'contract_constraints_invalid',
        typeof value === 'string' ? pointer : pointerTo(pointer, index),
        `a constraint is nonblank text, not ${describe(text)}`,
      );
    }
  });
  return texts.filter((text): text is string => typeof text === 'string' && text.trim() !== '');
}

/**
 * Checks an action contract declared at `pointer`, adding every problem to
 * `problems`; returns the contract when it is valid, else null.
 */
export function checkActionContract(
  value: unknown,
  pointer: string,
  problems: ProblemList,
): ActionContract | null {
  if (!isObject(value)) {
    problems.add(
      'contract_not_object',
      pointer,
      `an action contract must be an object, not ${describe(value)}`,
    );
    return null;
  }
  const before = problems.items.length;
  checkKeys(value, TOP_KEYS, pointer, problems);
  const version = value.contract_version;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) {
    problems.add(
      'contract_version_invalid',
      pointerTo(pointer, 'contract_version'),
      `contract_version must be a nonnegative integer, not ${describe(version)}; publish a higher one to change the contract`,
    );
  }
  const enforcement = value.enforcement ?? 'balanced';
  if (enforcement !== 'shadow' && enforcement !== 'balanced') {
    problems.add(
      'contract_enforcement_invalid',
      pointerTo(pointer, 'enforcement'),
      `enforcement must be "shadow" or "balanced", not ${describe(enforcement)}`,
    );
  }
  const rules = checkGroups(value, pointer, problems);
  const constraints = checkConstraints(
    value.constraints,
    pointerTo(pointer, 'constraints'),
    problems,
  );
  if (problems.items.length > before) return null;
  return {
    contract_version: version as number,
    enforcement: enforcement as 'shadow' | 'balanced',
    rules,
    constraints,
  };
}

/**
 * Validates an action contract on its own (the root is the contract).
 * Reports every problem with a JSON pointer; never throws.
 */
export function validateActionContract(input: unknown): Validated<ActionContract> {
  const problems = new ProblemList();
  const contract = checkActionContract(input, '', problems);
  return contract ? { ok: true, value: contract } : { ok: false, problems: problems.items };
}
