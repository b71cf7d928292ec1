import { ToolIndex } from '../evaluate/tool-index.js';
import type { ApprovalRule, Origin, Verdict } from '../schemas/approval.js';
import type { CompiledRule } from './compiled-rule.js';
import { resolveToolName } from './tool-pattern.js';

export const VERDICT_ALLOW = 0;
export const VERDICT_ASK = 1;
export const VERDICT_DENY = 2;
const VERDICT_CODES: Readonly<Record<Verdict, number>> = {
  allow: VERDICT_ALLOW,
  ask: VERDICT_ASK,
  deny: VERDICT_DENY,
};

/** How many distinct tool names a policy remembers candidates for before starting over. */
const CANDIDATE_CACHE_LIMIT = 4096;

/** How many indexes are shared across policies (runs that freeze the same rules). */
const SHARED_INDEX_LIMIT = 32;

/**
 * Indexes by what they read (each rule's index, path and glob), shared by
 * every policy with the same rules: each run compiles its frozen rules anew,
 * and this spares it rebuilding the automaton for the same list. Safe to
 * share because an index only reports rule indices and is used synchronously.
 */
const sharedIndexes = new Map<string, ToolIndex>();

function sharedIndex(rules: readonly CompiledRule[]): ToolIndex {
  const key = JSON.stringify(
    rules.map((rule) => [rule.index, rule.path, rule.match?.source ?? null]),
  );
  const known = sharedIndexes.get(key);
  if (known) {
    // Refresh its place, so the least recently used index leaves first.
    sharedIndexes.delete(key);
    sharedIndexes.set(key, known);
    return known;
  }
  const index = new ToolIndex(rules);
  if (sharedIndexes.size >= SHARED_INDEX_LIMIT)
    sharedIndexes.delete(sharedIndexes.keys().next().value!);
  sharedIndexes.set(key, index);
  return index;
}

/**
 * A validated rule list, compiled once and reused for every call. Rules are
 * indexed by origin and by the literal tool names they name; rules whose
 * tool is a wildcard are kept aside and tested once per distinct tool name,
 * so a call never re-walks rules that cannot match its tool.
 *
 * Each distinct candidate list gets one `ToolIndex` (built on first use and
 * shared by every tool name with the same candidates), which groups the
 * rules by path and finds their literals in one pass over the text.
 *
 * Only the validators construct it: `decide` cannot receive an unchecked list.
 */
export class CompiledPolicy {
  readonly #compiled: readonly CompiledRule[];
  /**
   * Each rule's verdict as a number (VERDICT_ALLOW, VERDICT_ASK, VERDICT_DENY),
   * by rule index: `decide` reads these for every matched rule, and a byte
   * array is cheaper to read than the rule objects.
   */
  readonly verdictCodes: Uint8Array;
  readonly #literalIndex = new Map<Origin, Map<string, CompiledRule[]>>();
  readonly #wildcards = new Map<Origin, CompiledRule[]>();
  /** Per origin, the candidates of each tool name seen (plain fields: this runs on every call). */
  readonly #candidateCache: Record<Origin, Map<string, Candidates>> = {
    model: new Map(),
    author: new Map(),
    kernel: new Map(),
  };
  /** Per origin, each wire tool name seen: its resolved name and index (the per-call lookup). */
  readonly #routeCache: Record<Origin, Map<string, ToolRoute>> = {
    model: new Map(),
    author: new Map(),
    kernel: new Map(),
  };
  /** One index per distinct candidate list (by rule indices), shared across tool names. */
  readonly #indexBySignature = new Map<string, ToolIndex>();
  readonly toolAliases: Readonly<Record<string, string>>;
  /** The declared tool names a model may call, or null when none were declared (any name). */
  readonly toolNames: ReadonlySet<string> | null;

  constructor(
    compiled: readonly CompiledRule[],
    toolAliases: Readonly<Record<string, string>>,
    toolNames: readonly string[] | null = null,
  ) {
    this.#compiled = compiled;
    this.verdictCodes = Uint8Array.from(compiled, (rule) => VERDICT_CODES[rule.verdict]);
    this.toolAliases = Object.freeze({ ...toolAliases });
    this.toolNames = toolNames ? new Set(toolNames) : null;
    for (const rule of compiled) this.#index(rule);
  }

  /** The declared rules, in order. */
  get rules(): readonly ApprovalRule[] {
    return this.#compiled.map((compiled) => compiled.rule);
  }

  /** The compiled rules, in order. */
  get compiledRules(): readonly CompiledRule[] {
    return this.#compiled;
  }

  #index(rule: CompiledRule): void {
    if (!rule.tool.literalOnly) {
      listFor(this.#wildcards, rule.origin).push(rule);
      return;
    }
    let byName = this.#literalIndex.get(rule.origin);
    if (!byName) {
      byName = new Map();
      this.#literalIndex.set(rule.origin, byName);
    }
    for (const name of new Set(rule.tool.literals)) listFor(byName, name).push(rule);
  }

  /** Every rule of this origin whose tool pattern names the resolved tool, in declaration order. */
  candidates(origin: Origin, toolName: string): readonly CompiledRule[] {
    return this.#candidatesFor(origin, toolName).rules;
  }

  /**
   * The resolved tool name of a wire name (runner qualification stripped,
   * aliases applied) and the evaluation index for it, in one lookup: this
   * runs on every call.
   */
  route(origin: Origin, wireName: string): ToolRoute {
    const cache = cacheOf(this.#routeCache, origin);
    const cached = cache?.get(wireName);
    if (cached) return cached;
    const toolName = resolveToolName(wireName, this.toolAliases);
    const route: ToolRoute = {
      toolName,
      index: this.#candidatesFor(origin, toolName).index,
      noRuleDetail: `no approval rule allows ${toolName}`,
      undeclaredDetail: `${toolName} is not among this run's tool_names`,
    };
    // A name that is not a string, or an origin outside the three, is answered but never kept.
    if (cache && typeof wireName === 'string') {
      if (cache.size >= CANDIDATE_CACHE_LIMIT) cache.clear();
      cache.set(wireName, route);
    }
    return route;
  }

  #candidatesFor(origin: Origin, toolName: string): Candidates {
    // An origin outside the three (a caller's bad value) gets a throwaway cache.
    const cache = cacheOf(this.#candidateCache, origin) ?? new Map<string, Candidates>();
    const cached = cache.get(toolName);
    if (cached) return cached;
    const literal = this.#literalIndex.get(origin)?.get(toolName) ?? [];
    const wild = (this.#wildcards.get(origin) ?? []).filter((rule) => rule.tool.matches(toolName));
    const merged = mergeByIndex(literal, wild);
    const signature = merged.map((rule) => rule.index).join(',');
    let index = this.#indexBySignature.get(signature);
    if (!index) {
      if (this.#indexBySignature.size >= CANDIDATE_CACHE_LIMIT) this.#indexBySignature.clear();
      index = sharedIndex(merged);
      this.#indexBySignature.set(signature, index);
    }
    const candidates = { rules: merged, index };
    if (cache.size >= CANDIDATE_CACHE_LIMIT) cache.clear();
    cache.set(toolName, candidates);
    return candidates;
  }
}

/** Where a wire tool name leads: the name it resolves to and the index of its rules. */
export interface ToolRoute {
  readonly toolName: string;
  readonly index: ToolIndex;
  /** The denial detail when no rule allows the tool (made once, not per call). */
  readonly noRuleDetail: string;
  /** The denial detail when a model calls a tool outside the declared tool_names. */
  readonly undeclaredDetail: string;
}

/** The rules that can apply to one tool name, and their evaluation index. */
interface Candidates {
  readonly rules: readonly CompiledRule[];
  readonly index: ToolIndex;
}

/** A compiled, validated approval policy; made only by `validateRuleList` or `validateProfileConfiguration`. */
export type Policy = CompiledPolicy;

/**
 * An origin's own cache, or null for a value outside the three origins (a
 * caller's bad value): plain field reads, never a prototype field, since
 * this runs on every call.
 */
function cacheOf<T>(caches: Record<Origin, Map<string, T>>, origin: Origin): Map<string, T> | null {
  if (origin === 'model') return caches.model;
  if (origin === 'author') return caches.author;
  if (origin === 'kernel') return caches.kernel;
  return null;
}

function listFor<K, V>(map: Map<K, V[]>, key: K): V[] {
  let list = map.get(key);
  if (!list) {
    list = [];
    map.set(key, list);
  }
  return list;
}

function mergeByIndex(
  left: readonly CompiledRule[],
  right: readonly CompiledRule[],
): readonly CompiledRule[] {
  if (right.length === 0) return left.slice();
  if (left.length === 0) return right;
  const merged: CompiledRule[] = [];
  let l = 0;
  let r = 0;
  while (l < left.length || r < right.length) {
    if (r >= right.length || (l < left.length && left[l]!.index < right[r]!.index))
      merged.push(left[l++]!);
    else merged.push(right[r++]!);
  }
  return merged;
}
