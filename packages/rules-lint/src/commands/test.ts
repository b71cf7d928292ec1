import { formatOption, parseCommand } from '../cli/arguments.js';
import { type CliIo, EXIT } from '../cli/cli-io.js';
import { requireDocument } from '../cli/load.js';
import { runExamples } from '../examples/run-examples.js';
import { lintDocument } from '../lint.js';
import { renderReports } from '../reporters/render.js';
import { readRuleFile } from '../rule-file.js';

/**
 * `rules-lint test FILE [--format pretty|json|sarif]`: runs the file's
 * `examples` with core's evaluator. Exit 1 when the declaration is invalid
 * or an example fails, 0 otherwise. Throws UsageError.
 */
export async function testCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommand(
    'test',
    args,
    { format: { type: 'string' } },
    { min: 1, max: 1, name: 'FILE' },
  );
  const format = formatOption(values.format);
  const path = positionals[0]!;
  const document = await requireDocument(path, io.cwd);
  const file = readRuleFile(document.value);
  if (!file.policy) {
    const findings = lintDocument(document, file, { rules: [] });
    io.stdout(renderReports(format, [{ file: path, findings, lines: document.lines }]));
    io.stderr(
      `rules-lint: ${path}: the kernel would refuse this declaration, so its examples cannot run\n`,
    );
    return EXIT.findings;
  }
  const run = runExamples({
    document,
    examples: file.examples,
    policy: file.policy,
    mode: file.mode,
  });
  io.stdout(renderReports(format, [{ file: path, findings: run.findings, lines: document.lines }]));
  if (run.total === 0) io.stderr(`rules-lint: ${path} has no examples\n`);
  else
    io.stderr(
      `${run.total} example${run.total === 1 ? '' : 's'}: ${run.passed} passed, ${run.total - run.passed} failed\n`,
    );
  return run.findings.length > 0 ? EXIT.findings : EXIT.clean;
}
