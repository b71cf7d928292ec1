import { basename } from 'node:path';
import type { ApprovalMode, Origin, Verdict } from '@airlock/core';
import { CoverIndex } from '../analysis/cover-index.js';
import { type RuleEntry, ruleEntries } from '../analysis/rule-entry.js';
import { RULE_WORK_UNITS, WorkBudget, withWorkBudget } from '../analysis/work-budget.js';
import type { LintConfig } from '../config/lint-config.js';
import { type RuleFile, runningMode } from '../rule-file.js';
import { shadowingRules } from '../rules/correctness/shadowed-allow/rule.js';
import { ruleAt, tolerantRuleFile } from './rule-at.js';

const MODES: readonly ApprovalMode[] = ['bypass', 'ask', 'rules'];

/** What a call gets when this rule is the strongest one that matches it (the spec's table). */
function outcomeUnder(mode: ApprovalMode, verdict: Verdict, origin: Origin): string {
  if (verdict === 'deny') return 'refused (`approval_denied`, with the reason)';
  if (origin !== 'model')
    return verdict === 'ask'
      ? 'parked for a person'
      : `granted by its origin (${origin} rows are granted anyway)`;
  if (verdict === 'allow')
    return mode === 'bypass' ? 'granted (by the mode)' : 'granted (by this rule)';
  return mode === 'bypass' ? 'granted (by the mode: bypass never parks)' : 'parked for a person';
}

/** What a rule matches, in words. */
function matchesText(entry: RuleEntry): string {
  const tools = entry.alternatives.map((alternative) => `\`${alternative}\``).join(' or ');
  if (entry.path === null) return `every call of ${tools}, whatever its input`;
  const at = `\`${entry.path.join('.')}\``;
  if (entry.match === undefined) return `calls of ${tools} with text at ${at}`;
  return `calls of ${tools} whose text at ${at} is all of \`${entry.match}\` (anchored at both ends: \`*\` any run, \`?\` one byte)`;
}

/**
 * The table's mark on the mode the file runs under, as `check` decides it:
 * a profile's `approval_mode`, else `ask` (the kernel's default for a
 * profile); a bare list's config `mode`, else none.
 */
function modeMark(
  file: Pick<RuleFile, 'kind' | 'mode'>,
  config: Pick<LintConfig, 'mode' | 'path'> | undefined,
): (mode: ApprovalMode) => string {
  if (file.mode !== undefined) return (mode) => (mode === file.mode ? ' (this file)' : '');
  if (file.kind === 'profile')
    return (mode) => (mode === runningMode(file) ? ' (this file, by default)' : '');
  const { mode: configMode, path } = config ?? {};
  const from = path === undefined ? 'its config' : basename(path);
  return (mode) => (mode === configMode ? ` (this file, by ${from})` : '');
}

/**
 * The hover of a rule: what it matches, what a call gets under each mode
 * when it is the strongest rule matching (the mode the file runs under
 * marked: a profile's `approval_mode`, else `ask`; a bare list's config
 * `mode`), and the
 * rules that shadow it (deny and ask over an allow, deny over an ask).
 * Undefined outside a rule.
 */
export function ruleHover(
  text: string,
  offset: number,
  config?: Pick<LintConfig, 'mode' | 'path'>,
): string | undefined {
  const { file } = tolerantRuleFile(text);
  const position = ruleAt(text, offset, file);
  if (position.ruleIndex === undefined) return undefined;
  const model = modelOf(file);
  const entries = model.entries;
  const entry = entries.find((candidate) => candidate.index === position.ruleIndex);
  if (!entry)
    return `**rule ${position.ruleIndex}**: the kernel refuses this rule (see the diagnostics).`;
  const mark = modeMark(file, config);
  const lines = [
    `**rule ${entry.index}**: ${entry.verdict}${entry.origin === 'model' ? '' : ` for ${entry.origin} rows`}`,
    '',
    `Matches ${matchesText(entry)}.`,
    '',
    `When it is the strongest matching rule (deny > ask > allow), a ${entry.origin} call is:`,
    '',
    '| mode | outcome |',
    '| --- | --- |',
    ...MODES.map(
      (mode) => `| ${mode}${mark(mode)} | ${outcomeUnder(mode, entry.verdict, entry.origin)} |`,
    ),
  ];
  const shadows = shadowsOf(entry, model);
  if (shadows && shadows.length > 0)
    lines.push(
      '',
      `Shadowed by rule${shadows.length > 1 ? 's' : ''} ${shadows.map((cover) => `${cover.index} (${cover.verdict})`).join(', ')}: it never decides a call.`,
    );
  return lines.join('\n');
}

/** What a read file's hovers share: its rule entries, and the index of the rules stronger than each kind. */
interface HoverModel {
  readonly entries: readonly RuleEntry[];
  readonly stronger: Map<string, CoverIndex>;
}
/** Kept per read, which is shared while its text is current: a large list is unpacked once, not per hover. */
const models = new WeakMap<RuleFile, HoverModel>();
function modelOf(file: RuleFile): HoverModel {
  let model = models.get(file);
  if (!model) {
    model = { entries: ruleEntries(file.rules, file.rulesPointer), stronger: new Map() };
    models.set(file, model);
  }
  return model;
}

function shadowsOf(entry: RuleEntry, model: HoverModel): RuleEntry[] | undefined {
  if (entry.verdict === 'deny') return undefined;
  const key = `${entry.origin} ${entry.verdict}`;
  let stronger = model.stronger.get(key);
  if (!stronger) {
    stronger = new CoverIndex(
      model.entries.filter(
        (other) =>
          other.origin === entry.origin &&
          (other.verdict === 'deny' || (entry.verdict === 'allow' && other.verdict === 'ask')),
      ),
    );
    model.stronger.set(key, stronger);
  }
  const index = stronger;
  return withWorkBudget(new WorkBudget(RULE_WORK_UNITS), () => shadowingRules(entry, index));
}
