import { formatOption, parseCommand } from '../cli/arguments.js';
import { type CliIo, EXIT } from '../cli/cli-io.js';
import { expandInputs } from '../cli/inputs.js';
import { loadInput } from '../cli/load.js';
import { writeOutput } from '../cli/write-output.js';
import { runExamples } from '../examples/run-examples.js';
import { withFingerprints } from '../fingerprint.js';
import { lintDocument } from '../lint.js';
import type { PrettyFileReport } from '../reporters/pretty.js';
import { renderReports } from '../reporters/render.js';
import { readRuleFile, runningMode } from '../rule-file.js';
import { acceptedPolicy } from './accepted-policy.js';

/**
 * `rules-lint test FILE... [--format F] [--allow-empty] [--output FILE]`:
 * runs each file's `examples` with core's evaluator. Exit 2 when a file
 * cannot be read, 1 when a declaration is refused, an example fails, or a
 * file has no examples (unless `--allow-empty`), else 0. Throws UsageError.
 */
export async function testCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommand(
    'test',
    args,
    {
      format: { type: 'string' },
      'allow-empty': { type: 'boolean' },
      output: { type: 'string' },
      'stdin-filename': { type: 'string' },
    },
    { min: 1, max: Number.POSITIVE_INFINITY, name: 'FILE' },
  );
  const format = formatOption(values.format);
  const stdinName = (values['stdin-filename'] as string | undefined) ?? 'stdin.json';
  const reports: PrettyFileReport[] = [];
  let failed = false;
  let unreadable = false;
  const inputs = expandInputs(positionals, io.cwd);
  for (const path of inputs.files) {
    const shown = path === '-' ? stdinName : path;
    const folderProblem = inputs.unreadable.get(path);
    const loaded =
      folderProblem === undefined
        ? await loadInput(path, io, stdinName)
        : { ok: false as const, message: folderProblem };
    if (!loaded.ok) {
      io.stderr(`rules-lint: ${loaded.message}\n`);
      reports.push({ file: shown, findings: [], failure: { message: loaded.message } });
      unreadable = true;
      continue;
    }
    const { document } = loaded;
    const file = readRuleFile(document.value);
    const policy = acceptedPolicy(document, file);
    if (!policy) {
      const findings = lintDocument(document, file, { rules: [] });
      reports.push({ file: shown, findings, lines: document.lines });
      io.stderr(
        `rules-lint: ${shown}: the kernel would refuse this declaration, so its examples cannot run\n`,
      );
      failed = true;
      continue;
    }
    const run = runExamples({
      document,
      examples: file.examples,
      policy,
      mode: runningMode(file),
    });
    reports.push({
      file: shown,
      findings: withFingerprints(document.text, run.findings),
      lines: document.lines,
    });
    if (run.findings.length > 0) failed = true;
    if (run.total === 0) {
      const allowed = values['allow-empty'] === true;
      io.stderr(
        `rules-lint: ${shown} has no examples${allowed ? '' : ' (pass --allow-empty to accept that)'}\n`,
      );
      if (!allowed) failed = true;
    } else {
      io.stderr(
        `${shown}: ${run.total} example${run.total === 1 ? '' : 's'}: ${run.passed} passed, ${run.total - run.passed} failed\n`,
      );
    }
  }
  await writeOutput(
    io,
    values.output as string | undefined,
    renderReports(format, reports, { root: io.cwd }),
  );
  if (unreadable) return EXIT.usage;
  return failed ? EXIT.findings : EXIT.clean;
}
