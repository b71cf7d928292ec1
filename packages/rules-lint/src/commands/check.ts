import { resolve } from 'node:path';
import { ApprovalModeSchema } from '@airlock/core';
import { fileLinter, withCustomRuleSets } from '../check-file.js';
import { choiceOption, formatOption, parseCommand } from '../cli/arguments.js';
import { readBaseline, subtractBaseline, writeBaseline } from '../cli/baseline.js';
import { type CliIo, UsageError } from '../cli/cli-io.js';
import { readRefusal, requireWritable, writeContained } from '../cli/contained-path.js';
import { lintExitCode, type WarningPolicy, warningPolicyNote } from '../cli/exit-code.js';
import { expandInputs } from '../cli/inputs.js';
import { loadInput, loadToolCatalog } from '../cli/load.js';
import { fileProgress } from '../cli/progress.js';
import { limitOption, writeOutput } from '../cli/write-output.js';
import { ConfigFinder } from '../config/find-config.js';
import type { Finding } from '../findings.js';
import { type FixLevel, fixDocument } from '../fixes/fix-document.js';
import { permissionFileKind } from '../permissions/permission-file.js';
import type { PrettyFileReport } from '../reporters/pretty.js';
import { renderReports } from '../reporters/render.js';
import { escapeForTerminal } from '../reporters/terminal-text.js';

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
  baseline: { type: 'string' },
  'write-baseline': { type: 'boolean' },
  fix: { type: 'boolean' },
  'fix-unsafe': { type: 'boolean' },
} as const;

/**
 * `rules-lint check FILE...`: lints rule files (folders, globs and `-` for
 * stdin included) under the nearest config file, applies `--fix` (or, with
 * `--fix-unsafe`, which implies it, the unsafe fixes too) in place,
 * subtracts (or writes) a `--baseline`, prints one report, and
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
    maxWarnings: limitOption(values['max-warnings'], 'max-warnings'),
    errorOnWarnings: values['error-on-warnings'] === true,
  };
  // --fix-unsafe implies --fix: given both, the unsafe fixes are applied too.
  const fixLevel: FixLevel | undefined =
    values['fix-unsafe'] === true ? 'unsafe' : values.fix === true ? 'safe' : undefined;
  if (fixLevel && positionals.includes('-'))
    throw new UsageError(
      `${fixLevel === 'unsafe' ? '--fix-unsafe' : '--fix'} cannot write to standard input; fix a file instead`,
    );
  const stdinName = (values['stdin-filename'] as string | undefined) ?? 'stdin.json';
  const cliTools = await loadToolCatalog(values.tools as string | undefined, io.cwd);
  const configs = new ConfigFinder(io.cwd, values.config as string | undefined);
  let reports: PrettyFileReport[] = [];
  const inputs = expandInputs(positionals, io.cwd);
  const { files } = inputs;
  // Inputs reported as failures without reading: a folder that could not be read, and a
  // link leading out of the working folder (its target could land in CI logs).
  const refused = new Map<string, string>(inputs.unreadable);
  for (const file of files) {
    const refusal = file === '-' || refused.has(file) ? undefined : readRefusal(file, io.cwd);
    if (refusal) refused.set(file, refusal);
  }
  // Refuse every unsafe write before writing anything.
  if (values.output !== undefined)
    requireWritable(values.output as string, io.cwd, `--output ${values.output}`);
  if (values['write-baseline'] === true && values.baseline !== undefined)
    requireWritable(values.baseline as string, io.cwd, `--baseline ${values.baseline}`);
  if (fixLevel)
    for (const file of files.filter((candidate) => !refused.has(candidate)))
      requireWritable(file, io.cwd, `${fixLevel === 'unsafe' ? '--fix-unsafe' : '--fix'} ${file}`);
  const progress = fileProgress(io, files.length);
  for (const file of files) {
    progress.tick();
    const shown = file === '-' ? stdinName : file;
    const refusal = refused.get(file);
    if (refusal) {
      io.stderr(`rules-lint: ${escapeForTerminal(refusal)}\n`);
      reports.push({ file: shown, findings: [], failure: { message: refusal } });
      continue;
    }
    const config = await configs.forFile(shown);
    const loaded = await loadInput(file, io, stdinName);
    if (!loaded.ok) {
      io.stderr(`rules-lint: ${escapeForTerminal(loaded.message)}\n`);
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
    const lint = fileLinter(document, {
      config,
      tools: cliTools,
      mode: cliMode,
      path: resolve(io.cwd, shown),
    });
    let findings: readonly Finding[];
    let lines = document.lines;
    if (fixLevel && !permissionFileKind(document.value)) {
      const fixed = fixDocument(document, lint, fixLevel);
      if (fixed.applied > 0) {
        // The byte order mark read off the file goes back where it was.
        const text = `${loaded.byteOrderMark}${fixed.document.text}`;
        await writeContained(file, io.cwd, text, `--fix ${file}`);
        io.stderr(
          `rules-lint: ${escapeForTerminal(shown)}: applied ${fixed.applied} fix${fixed.applied === 1 ? '' : 'es'}\n`,
        );
      }
      findings = fixed.findings;
      lines = fixed.document.lines;
    } else findings = lint(document);
    // Custom rule sets declared beside the rules are validated with positions too.
    findings = withCustomRuleSets(document, findings);
    reports.push({ file: shown, findings, lines });
  }
  progress.done();
  reports = await applyBaseline(
    reports,
    values.baseline as string | undefined,
    values['write-baseline'] === true,
    io,
  );
  // The exit code counts every finding: --quiet hides warnings from the report only, as in ESLint.
  const all = reports.flatMap((report) => report.findings);
  const exitCode = lintExitCode(
    all,
    reports.some((report) => report.failure),
    policy,
  );
  const note = warningPolicyNote(all, policy);
  if (values.quiet === true)
    reports = reports.map((report) => ({
      ...report,
      findings: report.findings.filter((finding) => finding.severity === 'error'),
    }));
  await writeOutput(
    io,
    values.output as string | undefined,
    renderReports(format, reports, { root: io.cwd }),
  );
  if (note) io.stderr(note);
  return exitCode;
}

/**
 * `--baseline FILE`: drops the findings the file accepts; with
 * `--write-baseline`, records the current findings in it first, so that
 * what was just recorded is accepted too (only declaration errors, which
 * never enter a baseline, remain). Throws UsageError.
 */
async function applyBaseline(
  reports: PrettyFileReport[],
  path: string | undefined,
  write: boolean,
  io: CliIo,
): Promise<PrettyFileReport[]> {
  if (write) {
    if (path === undefined) throw new UsageError('--write-baseline needs --baseline FILE');
    const written = await writeBaseline(path, io, reports);
    io.stderr(
      `rules-lint: recorded ${written} finding${written === 1 ? '' : 's'} in ${path}; later checks with --baseline ${path} report only new ones\n`,
    );
    return subtractBaseline(reports, await readBaseline(path, io.cwd)).reports;
  }
  if (path === undefined) return reports;
  const subtracted = subtractBaseline(reports, await readBaseline(path, io.cwd));
  if (subtracted.accepted > 0)
    io.stderr(`rules-lint: ${subtracted.accepted} finding(s) accepted by ${path}\n`);
  return subtracted.reports;
}
