import { textAtPath } from '../path/tool-input-path.js';
import type { CompiledRule } from '../rules/compiled-rule.js';
import { PathGroup } from './path-group.js';

/**
 * The rules that can apply to one resolved tool name and origin, arranged
 * for evaluation: tool-only rules always match; the others are grouped by
 * path, so each path's text is read once per call and searched once.
 */
export class ToolIndex {
  readonly #toolOnly: readonly number[];
  readonly #groups: readonly PathGroup[];

  constructor(rules: readonly CompiledRule[]) {
    const toolOnly: number[] = [];
    const byPath = new Map<readonly string[], CompiledRule[]>();
    for (const rule of rules) {
      if (rule.path === null) {
        toolOnly.push(rule.index);
        continue;
      }
      let list = byPath.get(rule.path);
      if (!list) {
        list = [];
        byPath.set(rule.path, list);
      }
      list.push(rule);
    }
    this.#toolOnly = toolOnly;
    this.#groups = [...byPath].map(([path, group]) => new PathGroup(path, group));
  }

  /** The indices of the rules that match this tool input, ascending. */
  matchIndices(toolInput: unknown): number[] {
    const matched = this.#toolOnly.length === 0 ? [] : this.#toolOnly.slice();
    const groups = this.#groups;
    // The input's kind is checked once here, not once per group.
    const isObject =
      toolInput !== null && typeof toolInput === 'object' && !Array.isArray(toolInput);
    for (let g = 0; g < groups.length; g++) {
      const group = groups[g]!;
      const text = isObject
        ? group.readObjectSource(toolInput as Record<string, unknown>)
        : textAtPath(toolInput, group.path);
      if (text !== undefined) group.collect(text, matched);
    }
    return matched.length < 2 ? matched : sortAscending(matched);
  }
}

/** Past this many matches, the built-in sort beats sorting by insertion. */
const INSERTION_SORT_MAX = 32;

function sortAscending(values: number[]): number[] {
  let sorted = true;
  for (let i = 1; i < values.length; i++) {
    if (values[i - 1]! > values[i]!) {
      sorted = false;
      break;
    }
  }
  if (sorted) return values;
  if (values.length > INSERTION_SORT_MAX) return values.sort((a, b) => a - b);
  // A few matches, nearly in order: insertion sort, with no comparator call per step.
  for (let i = 1; i < values.length; i++) {
    const value = values[i]!;
    let j = i - 1;
    while (j >= 0 && values[j]! > value) {
      values[j + 1] = values[j]!;
      j--;
    }
    values[j + 1] = value;
  }
  return values;
}
