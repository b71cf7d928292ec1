import { hash } from 'node:crypto';
import { type Policy, validateRuleList } from '@airlock/core';
import { AirlockError } from '../../errors.js';
import type { RunTable } from '../../store/schema.js';

const policiesByRun = new Map<string, Policy>();
/** Runs that froze the same rules (every run of one profile version) share one compiled policy. */
const policiesByRules = new Map<string, Policy>();
const POLICY_CACHE_LIMIT = 2000;

function remember(cache: Map<string, Policy>, key: string, policy: Policy): void {
  if (cache.size >= POLICY_CACHE_LIMIT) cache.clear();
  cache.set(key, policy);
}

/**
 * The compiled policy frozen on a run, cached per run and per frozen rule text
 * (the frozen JSON never changes), so the rules are validated and compiled once
 * however many runs freeze them.
 * @throws AirlockError invalid_configuration when the frozen rules no longer validate.
 */
export function policyForRun(
  run: Pick<RunTable, 'id' | 'approval_rules' | 'tool_aliases' | 'tool_names'>,
): Policy {
  const cached = policiesByRun.get(run.id);
  if (cached) return cached;
  const rulesKey = hash(
    'sha256',
    `${run.approval_rules}\0${run.tool_aliases}\0${run.tool_names ?? 'null'}`,
    'base64',
  );
  let policy = policiesByRules.get(rulesKey);
  if (!policy) {
    const validated = validateRuleList(JSON.parse(run.approval_rules), {
      toolAliases: JSON.parse(run.tool_aliases) as Record<string, string>,
      toolNames: run.tool_names ? (JSON.parse(run.tool_names) as string[]) : null,
    });
    if (!validated.ok) {
      throw new AirlockError(
        'invalid_configuration',
        'the rules frozen on this run do not validate',
        validated.problems,
      );
    }
    policy = validated.value;
    remember(policiesByRules, rulesKey, policy);
  }
  remember(policiesByRun, run.id, policy);
  return policy;
}
