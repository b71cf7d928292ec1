import { compileGlob, type Glob } from '../glob/byte-glob.js';
import { pointerTokens } from '../issues/problem.js';
import { textOf } from '../path/tool-input-path.js';
import type { PermissionRule, ToolManifestEntry } from '../schemas/permissions.js';
import { rootedPatternProblem } from './rooted-pattern.js';
import type { ShellPaths } from './shell-paths.js';
import {
  bindingPatternNames,
  bindingUrlTexts,
  globMayReach,
  globNamesMiss,
  holdsGuardedPaths,
  mayBeDirectory,
  mayHoldGuardedPaths,
  nearGuardedPaths,
  rooted,
  type TargetCoverage,
} from './target-coverage.js';
import { type CanonicalTarget, foldedPathText } from './targets.js';
import { workingDirectoryHolds } from './working-directory-condition.js';

/** A call as the permission rules read it. */
export interface PermissionCallFacts {
  readonly toolName: string;
  /** The tool's manifest entry; undefined for a tool the manifest does not declare. */
  readonly entry: ToolManifestEntry | undefined;
  /** The input, already validated against the tool's schema. */
  readonly input: unknown;
  readonly targets: readonly CanonicalTarget[];
  /** The words of the shell commands the input carries, as paths (shell-paths.ts), read on demand. */
  readonly shellPaths?: ShellPaths;
  /** Where the call is made, placed as a rule's `working_directory` is (working-directory-condition.ts). */
  readonly directory?: string | undefined;
}

const globs = new Map<string, Glob | null>();
const CACHE_LIMIT = 5000;

function glob(source: string): Glob | null {
  let compiled = globs.get(source);
  if (compiled === undefined) {
    const result = compileGlob(source);
    compiled = result.ok ? result.value : null;
    if (globs.size >= CACHE_LIMIT) globs.clear();
    globs.set(source, compiled);
  }
  return compiled;
}

/**
 * Whether a rule's glob matches `text`. A glob that does not compile (stored before a
 * limit was lowered, or by an older version) reaches here past the validator: it names
 * everything for a deny or an ask, so the rule fails closed, and nothing for an allow.
 */
function globNames(rule: PermissionRule, source: string, text: string): boolean {
  const compiled = glob(source);
  return compiled === null ? rule.verdict !== 'allow' : compiled.matches(text);
}

const rootedForms = new Map<string, boolean>();

/** Whether a target pattern has no rooted form (see rootedPatternProblem), cached per source. */
function notRooted(source: string): boolean {
  let problem = rootedForms.get(source);
  if (problem === undefined) {
    problem = rootedPatternProblem(source) !== null;
    if (rootedForms.size >= CACHE_LIMIT) rootedForms.clear();
    rootedForms.set(source, problem);
  }
  return problem;
}

/** The value a JSON pointer names in an input, or undefined when it names nothing. */
export function valueAtPointer(input: unknown, pointer: string): unknown {
  let value: unknown = input;
  for (const token of pointerTokens(pointer)) {
    if (Array.isArray(value) && /^(0|[1-9][0-9]*)$/.test(token)) value = value[Number(token)];
    else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      value = Object.hasOwn(value, token) ? (value as Record<string, unknown>)[token] : undefined;
    } else return undefined;
    if (value === undefined) return undefined;
  }
  return value;
}

/** Structural equality of JSON values (object key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, index) => jsonEqual(item, b[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return (
    keys.length === Object.keys(right).length &&
    keys.every((key) => Object.hasOwn(right, key) && jsonEqual(left[key], right[key]))
  );
}

function selectsTool(rule: PermissionRule, call: PermissionCallFacts): boolean {
  if (rule.tools && !rule.tools.some((source) => globNames(rule, source, call.toolName))) {
    return false;
  }
  if (rule.tool_names && !rule.tool_names.includes(call.toolName)) return false;
  if (rule.groups && !(call.entry?.group && rule.groups.includes(call.entry.group))) return false;
  if (rule.risks) {
    const traits = call.entry?.risk_traits ?? [];
    if (!rule.risks.some((trait) => traits.includes(trait))) return false;
  }
  return true;
}

/**
 * The text an argument pattern reads: a string; for a deny or an ask also an array of
 * scalars joined by one space, as the approval rules read one (`["rm", "-rf", "/"]` is
 * `rm -rf /`), so an argv the executor runs all the same does not slip past the rule. An
 * allow grants a string it matches, nothing else.
 */
function argumentText(rule: PermissionRule, value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  return rule.verdict === 'allow' ? undefined : textOf(value);
}

function argumentsMatch(rule: PermissionRule, input: unknown): boolean {
  for (const [pointer, expected] of Object.entries(rule.arguments ?? {})) {
    if (!jsonEqual(valueAtPointer(input, pointer), expected)) return false;
  }
  for (const [pointer, source] of Object.entries(rule.argument_patterns ?? {})) {
    const text = argumentText(rule, valueAtPointer(input, pointer));
    if (text === undefined || !globNames(rule, source, text)) return false;
  }
  return true;
}

/**
 * True when one of the rule's target patterns names this target. A deny or an ask also
 * names what a call on a path reaches beyond the path's own text (see
 * {@link bindingPatternNames}); an allow covers what its pattern matches alone.
 */
export function ruleCoversTarget(
  rule: PermissionRule,
  target: CanonicalTarget,
  coverage: TargetCoverage = {},
): boolean {
  if (target.kind === 'path') {
    const binds = rule.verdict !== 'allow';
    // A directory above the project root holds every path a rooted pattern can match.
    if (target.holdsProject === true && binds && coverage.removesTree === true) return true;
    const sources = rule.targets ?? [];
    // A stored pattern with no rooted form (the validator refuses it now) matches no path:
    // a deny or an ask holding one names every path target instead of failing open.
    if (binds && sources.some(notRooted)) return true;
    const path = target.rooted ? target.text : binds ? target.rootedWhenFolded : undefined;
    if (path === undefined) return false;
    return sources.some((source) =>
      binds ? bindingPatternNames(source, path, coverage) : rooted(source).matches(path),
    );
  }
  // Any URL at all (see ANY_URL): an allow covers none; a deny or an ask asks (mayReachGuardedPaths).
  if (target.anyUrl === true) return false;
  const texts = rule.verdict === 'allow' ? [target.text] : bindingUrlTexts(target.text);
  return (rule.urls ?? []).some((source) => texts.some((text) => globNames(rule, source, text)));
}

const TREE_REMOVING_TRAITS = new Set(['delete', 'destructive']);

/**
 * Whether a rule applies to a call. Every condition it states must hold. A
 * rule with target patterns applies to a deny or ask when it names any one
 * target; an allow applies only when it covers every target of the call, so
 * a partly covered call falls through to the next rule.
 */
export function permissionRuleMatches(rule: PermissionRule, call: PermissionCallFacts): boolean {
  if (!selectsTool(rule, call) || !argumentsMatch(rule, call.input)) return false;
  if (!workingDirectoryHolds(rule, call)) return false;
  if (rule.targets === undefined && rule.urls === undefined) return true;
  if (call.targets.length === 0) return false;
  if (rule.verdict === 'allow')
    return call.targets.every((target) => ruleCoversTarget(rule, target));
  const coverage = {
    removesTree: call.entry?.risk_traits.some((trait) => TREE_REMOVING_TRAITS.has(trait)) === true,
  };
  return call.targets.some((target) => ruleCoversTarget(rule, target, coverage));
}

/** Whether no file a search's name filter lets it read (each glob's names) is a guarded path. */
function filterMisses(source: string, filter: string | readonly string[]): boolean {
  const globs = typeof filter === 'string' ? [filter] : filter;
  return globs.every((glob) => globNamesMiss(source, glob));
}

/**
 * Whether a deny or an ask that its patterns do not name may still reach what they guard,
 * so the call is asked, not granted: a read tool given a directory holding the guarded
 * paths (`.` or `config` under `config/secrets/**`: a search or a listing of it reads
 * them), or a shell command whose words name a guarded path or such a directory (`cat
 * secrets/key`, `grep -r x .`). A tool that removes the tree is refused by
 * {@link permissionRuleMatches} instead; an allow is never read so.
 */
export function mayReachGuardedPaths(rule: PermissionRule, call: PermissionCallFacts): boolean {
  const sources = rule.targets;
  if (rule.verdict === 'allow' || (sources === undefined && rule.urls === undefined)) return false;
  if (!selectsTool(rule, call) || !argumentsMatch(rule, call.input)) return false;
  if (!workingDirectoryHolds(rule, call)) return false;
  // A call naming more URLs than are compared may name one this rule guards.
  if (rule.urls !== undefined && call.targets.some((target) => target.anyUrl === true)) return true;
  if (sources === undefined) return false;
  const reaches = (target: CanonicalTarget, named: boolean) => {
    if (target.kind !== 'path') return false;
    const path = target.rooted ? target.text : target.rootedWhenFolded;
    // A directory a command works in (`cd /repo`) is read only when it is a guarded path.
    if (target.namedOnly === true) {
      return sources.some(
        (source) =>
          notRooted(source) || (path !== undefined && bindingPatternNames(source, path, {})),
      );
    }
    if (target.holdsProject === true) return true;
    if (path === undefined) return false;
    const folded = foldedPathText(path);
    const entry = target.globEntry;
    if (entry !== undefined) {
      return sources.some(
        (source) =>
          notRooted(source) ||
          (nearGuardedPaths(source, folded) &&
            !(target.globLast !== undefined && globNamesMiss(source, target.globLast)) &&
            globMayReach(source, path, entry)),
      );
    }
    // A read tool's directory (a search, a listing) and a shell command's recursive reader's
    // (`grep -r x src`) are read through; another shell word only names it.
    const through =
      target.readThrough === true ||
      (!named && target.names !== 'file' && (target.names === 'directory' || mayBeDirectory(path)));
    const holds = through ? mayHoldGuardedPaths : holdsGuardedPaths;
    // A search reading only files its glob names (`*.ts`) reaches no guarded file it cannot name.
    const filter = through ? target.readsOnlyNames : undefined;
    return sources.some(
      (source) =>
        notRooted(source) ||
        (nearGuardedPaths(source, folded) &&
          !(filter !== undefined && filterMisses(source, filter)) &&
          (holds(source, path) || (named && bindingPatternNames(source, path, {})))),
    );
  };
  const traits = call.entry?.risk_traits ?? [];
  const reads = traits.includes('read') && !traits.some((trait) => TREE_REMOVING_TRAITS.has(trait));
  // A glob a writing tool is given names the files it may write (Gemini CLI's replace of a path
  // it may find below, ToolTarget's `when_missing`), as a reading tool's names those it reads.
  const glob = (target: CanonicalTarget) => target.globEntry !== undefined;
  if (call.targets.some((target) => (reads || glob(target)) && reaches(target, false))) return true;
  return call.shellPaths?.some(sources.length, (target) => reaches(target, true)) === true;
}
