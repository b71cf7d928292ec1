import { type ApprovalMode, ApprovalModeSchema } from '@airlock/core';
import { EXTRA_FINDING_CODES } from '../analysis/incomplete.js';
import { parseToolCatalog, type ToolCatalog } from '../catalog/tool-catalog.js';
import type { Severity } from '../findings.js';
import { lintRuleById } from '../rules/catalog.js';
import { DUPLICATE_KEY } from '../source/duplicate-keys.js';

/** A lint rule's setting in the config file: a severity, or `off`. */
export type RuleSetting = Severity | 'off';

/** What a `rules-lint.config.json` says, checked. */
export interface LintConfig {
  /** The file it came from (for messages), or undefined for the built-in defaults. */
  readonly path: string | undefined;
  /** Severity (or `off`) per lint rule id; rules not named keep their default. */
  readonly rules: Readonly<Record<string, RuleSetting>>;
  /** Tool catalog written in the config, or a path to one relative to the config's folder. */
  readonly tools: ToolCatalog | string | undefined;
  /** The mode a bare rule list runs under. */
  readonly mode: ApprovalMode | undefined;
}

/** The config used when no file is found: every rule at its default severity. */
export const DEFAULT_CONFIG: LintConfig = {
  path: undefined,
  rules: {},
  tools: undefined,
  mode: undefined,
};

/** A checked config, or every reason the value is not one. */
export type ParsedConfig = { ok: true; config: LintConfig } | { ok: false; problems: string[] };

const SETTINGS: Record<string, RuleSetting> = {
  error: 'error',
  warn: 'warning',
  warning: 'warning',
  info: 'info',
  off: 'off',
};
const KEYS = new Set(['$schema', 'rules', 'tools', 'mode']);

/**
 * Checks a config file's value: `{"rules": {"ID": "error"|"warn"|"info"|"off"},
 * "tools": CATALOG or "path.json", "mode": "bypass"|"ask"|"rules"}`. Every
 * problem is reported (unknown keys, unknown rule ids, bad severities).
 */
export function parseLintConfig(value: unknown, path: string): ParsedConfig {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, problems: ['a config is a JSON object'] };
  const record = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(record))
    if (!KEYS.has(key)) problems.push(`unknown key "${key}" (use rules, tools or mode)`);
  const rules: Record<string, RuleSetting> = {};
  if (record.rules !== undefined) {
    if (record.rules === null || typeof record.rules !== 'object' || Array.isArray(record.rules)) {
      problems.push('"rules" is an object of lint rule ids to error, warn, info or off');
    } else {
      for (const [id, setting] of Object.entries(record.rules)) {
        if (!lintRuleById(id) && !EXTRA_FINDING_CODES.includes(id) && id !== DUPLICATE_KEY)
          problems.push(`"rules": no lint rule "${id}"`);
        else if (typeof setting !== 'string' || !Object.hasOwn(SETTINGS, setting))
          problems.push(`"rules"."${id}" must be error, warn, info or off`);
        else rules[id] = SETTINGS[setting]!;
      }
    }
  }
  let tools: ToolCatalog | string | undefined;
  if (typeof record.tools === 'string') tools = record.tools;
  else if (record.tools !== undefined) {
    const catalog = parseToolCatalog(record.tools);
    if (catalog.ok) tools = catalog.catalog;
    else problems.push(`"tools": ${catalog.message}`);
  }
  let mode: ApprovalMode | undefined;
  if (record.mode !== undefined) {
    const parsed = ApprovalModeSchema.safeParse(record.mode);
    if (parsed.success) mode = parsed.data;
    else problems.push('"mode" must be bypass, ask or rules');
  }
  return problems.length > 0
    ? { ok: false, problems }
    : { ok: true, config: { path, rules, tools, mode } };
}

/** The severity a lint rule's findings get under this config, or `off`. */
export function ruleSetting(config: LintConfig, id: string, fallback: Severity): RuleSetting {
  return config.rules[id] ?? fallback;
}
