import { compileGlob, type Glob } from '../glob/byte-glob.js';
import { utf8Length } from '../glob/utf8.js';
import { invalid, ProblemList, pointerTo, type Validated } from '../issues/problem.js';
import { parsePath } from '../path/tool-input-path.js';
import { type ApprovalRule, OriginSchema, VerdictSchema } from '../schemas/approval.js';
import { DECLARATION_ENVELOPE_MAX_BYTES } from '../schemas/profile.js';
import { type CompiledRule, denialDetailOf } from './compiled-rule.js';
import { CompiledPolicy, type Policy } from './policy.js';
import { compileToolPattern, type ToolPattern } from './tool-pattern.js';

const RULE_KEYS = new Set(['tool', 'verdict', 'path', 'match', 'reason', 'origin']);

/** Options for compiling a rule list into a policy. */
export interface RuleListOptions {
  /** Tool aliases applied after runner-route resolution (`tool_aliases`). */
  readonly toolAliases?: Readonly<Record<string, string>>;
  /** The tools a model may call (`tool_names`); a model call to any other is refused. */
  readonly toolNames?: readonly string[] | null;
}

/**
 * Validates an approval rule list and compiles it into a reusable policy.
 * Reports every problem with a JSON pointer into the list; never throws.
 */
export function validateRuleList(input: unknown, options: RuleListOptions = {}): Validated<Policy> {
  const problems = new ProblemList();
  // Past the envelope nothing else is read: a huge list would cost a problem per item.
  if (!checkEnvelope(input, '', problems)) return invalid(problems.items);
  const rules = checkRuleList(input, '', problems);
  if (!problems.empty || rules === null) return invalid(problems.items);
  return {
    ok: true,
    value: new CompiledPolicy(rules, options.toolAliases ?? {}, options.toolNames ?? null),
  };
}

/**
 * Adds `envelope_too_large` when the JSON of the value is over 64 KiB, or
 * `not_serializable` when it has no JSON form. Returns false on either.
 */
export function checkEnvelope(input: unknown, pointer: string, problems: ProblemList): boolean {
  let json: string | undefined;
  try {
    json = JSON.stringify(input);
  } catch {
    problems.add(
      'not_serializable',
      pointer,
      'the declaration has no JSON form (a cycle, a BigInt, or nesting too deep)',
    );
    return false;
  }
  const bytes = json === undefined ? 0 : utf8Length(json);
  if (bytes > DECLARATION_ENVELOPE_MAX_BYTES) {
    problems.add(
      'envelope_too_large',
      pointer,
      `the declaration is ${bytes} bytes of JSON; the limit is ${DECLARATION_ENVELOPE_MAX_BYTES} (64 KiB)`,
    );
    return false;
  }
  return true;
}

/** Checks a rule list at `base`, adding problems; returns the compiled rules or null. */
export function checkRuleList(
  input: unknown,
  base: string,
  problems: ProblemList,
): CompiledRule[] | null {
  if (!Array.isArray(input)) {
    problems.add(
      'rules_not_array',
      base,
      `approval rules must be a JSON array, not ${describe(input)}`,
    );
    return null;
  }
  const compiled: CompiledRule[] = [];
  const paths = new Map<string, readonly string[]>();
  input.forEach((candidate, index) => {
    const rule = checkRule(candidate, index, pointerTo(base, index), { problems, paths });
    if (rule) compiled.push(rule);
  });
  return compiled;
}

/** What checking one rule shares with the rest of its list. */
interface RuleContext {
  readonly problems: ProblemList;
  /** One segment array per distinct path, so evaluation can cache text by identity. */
  readonly paths: Map<string, readonly string[]>;
}

function checkRule(
  candidate: unknown,
  index: number,
  at: string,
  { problems, paths }: RuleContext,
): CompiledRule | null {
  if (candidate === null || typeof candidate !== 'object' || Array.isArray(candidate)) {
    problems.add(
      'rule_not_object',
      at,
      `rule ${index} must be an object, not ${describe(candidate)}`,
    );
    return null;
  }
  const before = problems.items.length;
  const fields = candidate as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!RULE_KEYS.has(key)) {
      problems.add(
        'unknown_key',
        pointerTo(at, key),
        `"${key}" is not a rule key; a rule has only tool, verdict, path, match, reason and origin`,
      );
    }
  }
  const tool = checkTool(fields, at, problems);
  const verdict = checkVerdict(fields, at, problems);
  const origin = checkOrigin(fields, at, problems);
  const path = internPath(checkPath(fields, at, problems), paths);
  const match = checkMatch(fields, at, problems);
  if (typeof fields.reason !== 'string' && fields.reason !== undefined) {
    problems.add('reason_not_string', pointerTo(at, 'reason'), 'reason must be text');
  }
  if (problems.items.length > before || !tool || !verdict) return null;
  return {
    index,
    rule: fields as ApprovalRule,
    verdict,
    origin: origin ?? 'model',
    tool,
    path,
    match,
    denialDetail: denialDetailOf(index, fields.reason as string | undefined),
  };
}

function checkTool(
  fields: Record<string, unknown>,
  at: string,
  problems: ProblemList,
): ToolPattern | null {
  if (!Object.hasOwn(fields, 'tool')) {
    problems.add('tool_missing', at, 'a rule needs "tool": the tool name or glob it applies to');
    return null;
  }
  if (typeof fields.tool !== 'string') {
    problems.add(
      'tool_not_string',
      pointerTo(at, 'tool'),
      `tool must be text, not ${describe(fields.tool)}`,
    );
    return null;
  }
  const pattern = compileToolPattern(fields.tool);
  if (pattern.ok) return pattern.value;
  for (const problem of pattern.problems)
    problems.add(problem.code, pointerTo(at, 'tool'), problem.message);
  return null;
}

function checkVerdict(fields: Record<string, unknown>, at: string, problems: ProblemList) {
  if (!Object.hasOwn(fields, 'verdict')) {
    problems.add('verdict_missing', at, 'a rule needs "verdict": allow, ask or deny');
    return null;
  }
  const verdict = VerdictSchema.safeParse(fields.verdict);
  if (verdict.success) return verdict.data;
  problems.add(
    'verdict_invalid',
    pointerTo(at, 'verdict'),
    `verdict must be allow, ask or deny, not ${describe(fields.verdict)}`,
  );
  return null;
}

function checkOrigin(fields: Record<string, unknown>, at: string, problems: ProblemList) {
  if (fields.origin === undefined) return null;
  const origin = OriginSchema.safeParse(fields.origin);
  if (origin.success) return origin.data;
  problems.add(
    'origin_invalid',
    pointerTo(at, 'origin'),
    `origin must be model, author or kernel, not ${describe(fields.origin)}`,
  );
  return null;
}

function checkPath(fields: Record<string, unknown>, at: string, problems: ProblemList) {
  if (fields.path === undefined) return null;
  if (typeof fields.path !== 'string') {
    problems.add(
      'path_not_string',
      pointerTo(at, 'path'),
      `path must be dotted text, not ${describe(fields.path)}`,
    );
    return null;
  }
  const segments = parsePath(fields.path);
  if (segments === null) {
    problems.add(
      'path_segment_empty',
      pointerTo(at, 'path'),
      `path "${fields.path}" has an empty segment; write keys and indices separated by single dots, e.g. edits.0.path`,
    );
  }
  return segments;
}

function internPath(
  segments: readonly string[] | null,
  paths: Map<string, readonly string[]>,
): readonly string[] | null {
  if (segments === null) return null;
  const key = segments.join('.');
  const known = paths.get(key);
  if (known) return known;
  paths.set(key, segments);
  return segments;
}

function checkMatch(
  fields: Record<string, unknown>,
  at: string,
  problems: ProblemList,
): Glob | null {
  if (fields.match === undefined) return null;
  const pointer = pointerTo(at, 'match');
  if (typeof fields.match !== 'string') {
    problems.add(
      'match_not_string',
      pointer,
      `match must be a glob as text, not ${describe(fields.match)}`,
    );
    return null;
  }
  if (fields.path === undefined) {
    problems.add(
      'match_without_path',
      pointer,
      'match needs a path: say which text of the tool input the glob reads',
    );
  }
  const glob = compileGlob(fields.match);
  if (glob.ok) return glob.value;
  for (const problem of glob.problems) problems.add(problem.code, pointer, problem.message);
  return null;
}

/** A short description of a JSON value's kind, for messages. */
export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string')
    return `the text ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  return `the ${typeof value} ${String(value)}`;
}
