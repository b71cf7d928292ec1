import type { Policy, ToolRoute } from '../rules/policy.js';
import { resolveToolName } from '../rules/tool-pattern.js';
import type { Origin } from '../schemas/approval.js';
import { ToolIndex } from './tool-index.js';

/*
 * A profile's tool_aliases map the name a model called to the name the rules resolve, but an
 * executor serves the called name. So a deny or ask rule that names the called name binds an
 * aliased call as well: an alias never takes a call out of a refusal or a person's reach. An
 * allow still grants by the resolved name alone, as the grammar says.
 */

/** How many called names one policy keeps an index for before starting over. */
const CALLED_INDEX_LIMIT = 4096;

/** Per policy and origin, the deny and ask rules naming each called name, indexed (null: none). */
const calledIndexes = new WeakMap<Policy, Map<string, ToolIndex | null>>();

/**
 * The name a call was made by before aliases (a runner qualification stripped), when an alias
 * turned it into another resolved name; null when the rules read the call by one name only.
 */
export function aliasedFrom(wireName: string, resolvedName: string): string | null {
  if (wireName === resolvedName || typeof wireName !== 'string') return null;
  const called = resolveToolName(wireName);
  return called === resolvedName ? null : called;
}

function calledNameIndex(policy: Policy, origin: Origin, called: string): ToolIndex | null {
  let byName = calledIndexes.get(policy);
  if (!byName) {
    byName = new Map();
    calledIndexes.set(policy, byName);
  }
  const key = `${origin}\0${called}`;
  const known = byName.get(key);
  if (known !== undefined) return known;
  const binding = policy.candidates(origin, called).filter((rule) => rule.verdict !== 'allow');
  const index = binding.length === 0 ? null : new ToolIndex(binding);
  if (byName.size >= CALLED_INDEX_LIMIT) byName.clear();
  byName.set(key, index);
  return index;
}

/**
 * The indices of the rules that decide a call, ascending: every rule of its origin naming the
 * resolved name that matches, and, for an aliased call, every deny or ask rule naming the
 * name it was called by that matches.
 */
export function matchedRuleIndices(
  policy: Policy,
  route: ToolRoute,
  call: { readonly origin: Origin; readonly toolName: string; readonly toolInput: unknown },
): number[] {
  const matched = route.index.matchIndices(call.toolInput);
  const called = aliasedFrom(call.toolName, route.toolName);
  if (called === null) return matched;
  const index = calledNameIndex(policy, call.origin, called);
  if (index === null) return matched;
  const more = index.matchIndices(call.toolInput);
  if (more.length === 0) return matched;
  return [...new Set([...matched, ...more])].sort((a, b) => a - b);
}
