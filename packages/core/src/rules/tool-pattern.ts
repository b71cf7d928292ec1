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

const QUALIFIED_CALLABLE = /^(.+)__[0-9a-f]{12}$/;

/**
 * The name the rules see for a call: a runner-qualified callable
 * `NAME__0123456789ab` is checked as `NAME`, then the profile's aliases apply.
 */
export function resolveToolName(name: string, aliases?: Readonly<Record<string, string>>): string {
  const served = QUALIFIED_CALLABLE.exec(name)?.[1] ?? name;
  if (aliases && Object.hasOwn(aliases, served)) return aliases[served]!;
  return served;
}
