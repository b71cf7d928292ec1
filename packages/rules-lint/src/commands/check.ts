import { ApprovalModeSchema } from '@airlock/core';
import { choiceOption, formatOption, parseCommand } from '../cli/arguments.js';
import type { CliIo } from '../cli/cli-io.js';
import { lintExitCode, type WarningPolicy, warningPolicyNote } from '../cli/exit-code.js';
import { expandInputs } from '../cli/inputs.js';
import { loadInput, loadToolCatalog } from '../cli/load.js';
import { countOption, writeOutput } from '../cli/write-output.js';
import { ConfigFinder } from '../config/find-config.js';
import type { Finding } from '../findings.js';
import { lintDocument } from '../lint.js';
import type { PrettyFileReport } from '../reporters/pretty.js';
import { renderReports } from '../reporters/render.js';
import { readRuleFile } from '../rule-file.js';

const OPTIONS = {
  format: { type: 'string' },
  tools: { type: 'string' },
  mode: { type: 'string' },
  config: { type: 'string' },
  quiet: { type: 'boolean' },
  output: { type: 'string' },
  'max-warnings': { type: 'string' },
  'error-on-warnings': { type: 'boolean' },
  'stdin-filename': { type: 'string' },
} as const;

/**
 * `rules-lint check FILE...`: lints rule files (folders, globs and `-` for
 * stdin included) under the nearest config file, prints one report, and
 * exits 2 when a file cannot be read or parsed (one line each on stderr),
 * else 1 on an error finding or warnings past `--max-warnings` /
 * `--error-on-warnings`, else 0. Throws UsageError.
 */
export async function checkCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommand('check', args, OPTIONS, {
    min: 1,
    max: Number.POSITIVE_INFINITY,
    name: 'FILE (a rule list or profile configuration, a folder, a glob, or - for stdin)',
  });
  const format = formatOption(values.format);
  const cliMode = choiceOption(values.mode, 'mode', ApprovalModeSchema.options);
  const policy: WarningPolicy = {
    maxWarnings: countOption(values['max-warnings'], 'max-warnings'),
    errorOnWarnings: values['error-on-warnings'] === true,
  };
  const stdinName = (values['stdin-filename'] as string | undefined) ?? 'stdin.json';
  const cliTools = await loadToolCatalog(values.tools as string | undefined, io.cwd);
  const configs = new ConfigFinder(io.cwd, values.config as string | undefined);
  const reports: PrettyFileReport[] = [];
  for (const file of expandInputs(positionals, io.cwd)) {
    const shown = file === '-' ? stdinName : file;
    const config = await configs.forFile(shown);
    const loaded = await loadInput(file, io, stdinName);
    if (!loaded.ok) {
      io.stderr(`rules-lint: ${loaded.message}\n`);
      reports.push({
        file: shown,
        findings: [],
        failure: loaded.location
          ? { message: loaded.message, location: loaded.location }
          : { message: loaded.message },
      });
      continue;
    }
    const { document } = loaded;
    const ruleFile = readRuleFile(document.value);
    const mode = ruleFile.mode ?? cliMode ?? config.mode;
    const tools = cliTools ?? config.tools;
    let findings: Finding[] = lintDocument(
      document,
      { ...ruleFile, mode },
      {
        settings: config.rules,
        ...(tools ? { tools } : {}),
      },
    );
    if (values.quiet === true)
      findings = findings.filter((finding) => finding.severity === 'error');
    reports.push({ file: shown, findings, lines: document.lines });
  }
  await writeOutput(
    io,
    values.output as string | undefined,
    renderReports(format, reports, { root: io.cwd }),
  );
  const all = reports.flatMap((report) => report.findings);
  const note = warningPolicyNote(all, policy);
  if (note) io.stderr(note);
  return lintExitCode(
    all,
    reports.some((report) => report.failure),
    policy,
  );
}
