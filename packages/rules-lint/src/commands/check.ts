import { ApprovalModeSchema } from '@airlock/core';
import { choiceOption, formatOption, parseCommand } from '../cli/arguments.js';
import { type CliIo, EXIT } from '../cli/cli-io.js';
import { loadDocument, loadToolCatalog } from '../cli/load.js';
import { compareFindings } from '../findings.js';
import { lintDocument } from '../lint.js';
import {
  customRuleSetFindings,
  permissionFileKind,
  permissionFindings,
} from '../permissions/permission-file.js';
import type { PrettyFileReport } from '../reporters/pretty.js';
import { renderReports } from '../reporters/render.js';
import { readRuleFile } from '../rule-file.js';

/**
 * `rules-lint check FILE... [--format pretty|json|sarif] [--tools CATALOG.json] [--mode M]`.
 * `--mode` is the mode a bare rule list runs under; a profile's own approval_mode wins.
 * Exit 2 when a file cannot be read or parsed (one line each on stderr),
 * else 1 when any finding is an error, else 0. Throws UsageError.
 */
export async function checkCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommand(
    'check',
    args,
    { format: { type: 'string' }, tools: { type: 'string' }, mode: { type: 'string' } },
    { min: 1, max: Number.POSITIVE_INFINITY, name: 'FILE (a rule list or profile configuration)' },
  );
  const format = formatOption(values.format);
  const mode = choiceOption(values.mode, 'mode', ApprovalModeSchema.options);
  const tools = await loadToolCatalog(values.tools as string | undefined, io.cwd);
  const reports: PrettyFileReport[] = [];
  for (const file of positionals) {
    const loaded = await loadDocument(file, io.cwd);
    if (!loaded.ok) {
      io.stderr(`rules-lint: ${loaded.message}\n`);
      reports.push({
        file,
        findings: [],
        failure: loaded.location
          ? { message: loaded.message, location: loaded.location }
          : { message: loaded.message },
      });
      continue;
    }
    const { document } = loaded;
    const permissionKind = permissionFileKind(document.value);
    if (permissionKind) {
      const findings = permissionFindings(document, permissionKind);
      reports.push({ file, findings, lines: document.lines });
      continue;
    }
    const ruleFile = readRuleFile(document.value);
    const withMode =
      ruleFile.mode === undefined && mode !== undefined ? { ...ruleFile, mode } : ruleFile;
    const findings = [
      ...lintDocument(document, withMode, tools ? { tools } : {}),
      ...customRuleSetFindings(document),
    ].sort(compareFindings);
    reports.push({ file, findings, lines: document.lines });
  }
  io.stdout(renderReports(format, reports));
  if (reports.some((report) => report.failure)) return EXIT.usage;
  return reports.some((report) => report.findings.some((finding) => finding.severity === 'error'))
    ? EXIT.findings
    : EXIT.clean;
}
