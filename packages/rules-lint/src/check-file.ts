import type { ApprovalMode } from '@airlock/core';
import type { ToolCatalog } from './catalog/tool-catalog.js';
import type { LoadedConfig } from './config/find-config.js';
import { compareFindings, type Finding } from './findings.js';
import { withFingerprints } from './fingerprint.js';
import { lintDocument, lintRuleFindings } from './lint.js';
import { permissionRuleEntries } from './permissions/permission-entries.js';
import {
  customRuleSetFindings,
  overlayScopeOf,
  type PermissionFileKind,
  permissionChainFindings,
  permissionFileKind,
  permissionFindings,
  permissionRuleLists,
} from './permissions/permission-file.js';
import { readRuleFile, runningMode } from './rule-file.js';
import type { LintContext } from './rules/lint-rule.js';
import type { SourceDocument } from './source/document.js';
import { applySuppressions } from './suppress/suppressions.js';

/** What decides how one file is linted: its config, plus what the command line overrides. */
export interface FileLintSettings {
  /** The nearest config (or `--config`), with its tool catalog loaded. */
  readonly config: LoadedConfig;
  /** `--tools CATALOG.json`: replaces the config's catalog when given. */
  readonly tools?: ToolCatalog | undefined;
  /** `--mode`: used for a bare list before the config's mode (a profile runs under its own, else `ask`). */
  readonly mode?: ApprovalMode | undefined;
  /**
   * The file's absolute path, when the document's own name is relative: it
   * decides whether an overlay is a repository's `.airlock/permissions.json`
   * (a project document) wherever the command runs from.
   */
  readonly path?: string | undefined;
}

/**
 * The one way a file is linted, shared by `check` and the language server
 * so that an editor shows exactly what CI reports: a permission file gets
 * its own findings; a rule file gets the declaration problems and every
 * lint rule under the config's severities, tool catalog and mode, plus its
 * custom rule sets. Permission rules get `allow-grants-chains` under the
 * same setting. Never throws.
 */
export function fileLinter(
  document: SourceDocument,
  settings: FileLintSettings,
): (current: SourceDocument) => Finding[] {
  const { config } = settings;
  const chains = (current: SourceDocument, kind: ReturnType<typeof permissionFileKind>) =>
    withFingerprints(
      current.text,
      permissionChainFindings(current, kind, config.rules['allow-grants-chains']),
    );
  const tools = settings.tools ?? config.tools;
  if (permissionFileKind(document.value))
    return (current) => {
      const kind = permissionFileKind(current.value);
      if (kind === null) return [];
      const scope = overlayScopeOf(settings.path ?? current.fileName);
      const linted = withFingerprints(
        current.text,
        applySuppressions(
          current,
          lintRuleFindings(current, permissionFileContext(current, kind, tools), {
            settings: config.rules,
          }),
          // Only part of the file's findings pass here: a comment silencing nothing proves nothing.
          { reportUnused: false },
        ),
      );
      return [
        ...permissionFindings(current, kind, scope),
        ...chains(current, kind),
        ...linted,
      ].sort(compareFindings);
    };
  return (current) => {
    const ruleFile = readRuleFile(current.value);
    const mode = runningMode(ruleFile, settings.mode ?? config.mode);
    const linted = lintDocument(
      current,
      { ...ruleFile, ...(mode === undefined ? {} : { mode }) },
      { settings: config.rules, ...(tools ? { tools } : {}) },
    );
    return [...linted, ...chains(current, null)].sort(compareFindings);
  };
}

/**
 * What the lint rules see of an overlay document or a custom rule set file:
 * its permission rules alone (no approval rules), and no project root, the
 * profile that sets it being elsewhere.
 */
function permissionFileContext(
  document: SourceDocument,
  kind: PermissionFileKind,
  tools: ToolCatalog | undefined,
): LintContext {
  return {
    rules: [],
    listLength: 0,
    mode: undefined,
    toolAliases: {},
    tools,
    permissionRules: permissionRuleEntries(permissionRuleLists(document.value, kind)),
  };
}

/** Adds the custom rule set findings `check` reports beside a rule file's own, sorted. */
export function withCustomRuleSets(
  document: SourceDocument,
  findings: readonly Finding[],
): Finding[] {
  if (permissionFileKind(document.value)) return [...findings];
  return [...findings, ...customRuleSetFindings(document)].sort(compareFindings);
}
