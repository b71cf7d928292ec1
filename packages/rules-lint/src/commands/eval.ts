import { ApprovalModeSchema, OriginSchema } from '@airlock/core';
import { choiceOption, parseCommand, requiredOption } from '../cli/arguments.js';
import { type CliIo, EXIT, UsageError } from '../cli/cli-io.js';
import { requireDocument } from '../cli/load.js';
import { evaluateCall } from '../evaluate/evaluate-call.js';
import { lintDocument } from '../lint.js';
import { renderPretty } from '../reporters/pretty.js';
import { readRuleFile, runningMode } from '../rule-file.js';
import { acceptedPolicy } from './accepted-policy.js';
import { evalRuleSetCommand, selectsRuleSet } from './eval-rule-set.js';

/**
 * `rules-lint eval --rules FILE --mode bypass|ask|rules [--origin O] --tool NAME --input JSON`:
 * prints core's decision for one call as JSON. `--mode` may be left out for
 * a profile: it runs under its `approval_mode`, else `ask`. Exit 1 when the kernel would refuse
 * the file (its problems on stderr). Throws UsageError.
 */
export async function evalCommand(args: readonly string[], io: CliIo): Promise<number> {
  if (selectsRuleSet(args)) return evalRuleSetCommand(args, io);
  const { values } = parseCommand(
    'eval',
    args,
    {
      rules: { type: 'string' },
      mode: { type: 'string' },
      origin: { type: 'string' },
      tool: { type: 'string' },
      input: { type: 'string' },
    },
    { min: 0, max: 0, name: '' },
  );
  const rulesPath = requiredOption(values, 'rules', 'eval');
  const tool = requiredOption(values, 'tool', 'eval');
  const origin = choiceOption(values.origin, 'origin', OriginSchema.options) ?? 'model';
  const input = parseInput(values.input);
  const document = await requireDocument(rulesPath, io.cwd);
  const file = readRuleFile(document.value);
  const mode = choiceOption(values.mode, 'mode', ApprovalModeSchema.options) ?? runningMode(file);
  if (!mode) throw new UsageError('eval: --mode is required (a bare rule list has no mode)');
  const policy = acceptedPolicy(document, file);
  if (!policy) {
    const findings = lintDocument(document, file, { rules: [] });
    io.stderr(renderPretty([{ file: rulesPath, findings, lines: document.lines }]));
    return EXIT.findings;
  }
  io.stdout(`${JSON.stringify(evaluateCall(policy, { mode, origin, tool, input }), null, 2)}\n`);
  return EXIT.clean;
}

function parseInput(text: string | boolean | undefined): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(String(text));
  } catch (error) {
    throw new UsageError(`eval: --input is not JSON (${(error as Error).message})`);
  }
}
