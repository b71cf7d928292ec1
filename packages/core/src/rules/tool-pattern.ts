import { compileGlob, type Glob, isLiteralGlob } from '../glob/byte-glob.js';
import { invalid, type Problem, type Validated, valid } from '../issues/problem.js';

/** A rule's `tool` field compiled: `|`-separated anchored globs. */
export interface ToolPattern {
  readonly source: string;
  readonly alternatives: readonly Glob[];
  /** The alternatives without `*` or `?`: each names exactly one tool. */
  readonly literals: readonly string[];
  /** True when every alternative is literal, so the literal list is the whole pattern. */
  readonly literalOnly: boolean;
  /** True when any alternative matches the (already resolved) tool name. */
  matches(toolName: string): boolean;
}

/**
 * Compiles a `tool` field. Problems carry pointer '' (the caller prefixes
 * its own): an empty alternative (`bash|`, `|`, ``) or one that does not
 * compile as a glob.
 */
export function compileToolPattern(tool: string): Validated<ToolPattern> {
  const sources = tool.split('|');
  const problems: Problem[] = [];
  const alternatives: Glob[] = [];
  sources.forEach((source, index) => {
    if (source === '') {
      problems.push({
        code: 'tool_alternative_empty',
        pointer: '',
        message: `alternative ${index + 1} of "${tool}" is empty; write a tool name or glob on both sides of every "|"`,
      });
      return;
    }
    const glob = compileGlob(source);
    if (glob.ok) alternatives.push(glob.value);
    else problems.push(...glob.problems);
  });
  if (problems.length > 0) return invalid(problems);
  const literals = sources.filter(isLiteralGlob);
  return valid({
    source: tool,
    alternatives,
    literals,
    literalOnly: literals.length === sources.length,
    matches: (toolName: string) => alternatives.some((glob) => glob.matches(toolName)),
  });
}

/** `__` plus 12 lowercase hex digits: the runner qualification of a callable. */
const QUALIFIER_UNITS = 14;

/**
 * The name the rules see for a call: a runner-qualified callable
 * `NAME__0123456789ab` is checked as `NAME`, then the profile's aliases apply.
 * NAME is at least one character and holds no line terminator (the reading
 * of the grammar's `(.+)__[0-9a-f]{12}`).
 */
export function resolveToolName(name: string, aliases?: Readonly<Record<string, string>>): string {
  const served = servedName(name);
  if (aliases && Object.hasOwn(aliases, served)) return aliases[served]!;
  return served;
}

/** Strips a runner qualification without a RegExp: this runs on every call. */
function servedName(name: string): string {
  if (typeof name !== 'string') return name;
  const cut = name.length - QUALIFIER_UNITS;
  if (cut < 1 || name.charCodeAt(cut) !== 0x5f || name.charCodeAt(cut + 1) !== 0x5f) return name;
  for (let i = cut + 2; i < name.length; i++) {
    const unit = name.charCodeAt(i);
    const hex = (unit >= 0x30 && unit <= 0x39) || (unit >= 0x61 && unit <= 0x66);
    if (!hex) return name;
  }
  for (let i = 0; i < cut; i++) {
    const unit = name.charCodeAt(i);
    if (unit === 0x0a || unit === 0x0d || unit === 0x2028 || unit === 0x2029) return name;
  }
  return name.slice(0, cut);
}
