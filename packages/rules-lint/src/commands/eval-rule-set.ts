import {
  type ActiveOverlays,
  ApprovalModeSchema,
  decide,
  type OverlayScope,
  type ToolManifest,
  validateOverlayDocument,
} from '@airlock/core';
import { choiceOption, parseCommand, requiredOption } from '../cli/arguments.js';
import { type CliIo, EXIT, UsageError } from '../cli/cli-io.js';
import { requireDocument } from '../cli/load.js';
import { lintDocument } from '../lint.js';
import { permissionFindings } from '../permissions/permission-file.js';
import { evaluateRuleSetCall } from '../permissions/rule-set-eval.js';
import { renderPretty } from '../reporters/pretty.js';
import { readRuleFile, runningMode } from '../rule-file.js';
import { acceptedPolicy } from './accepted-policy.js';

/** True when an `eval` command line selects a permission rule set. */
export function selectsRuleSet(args: readonly string[]): boolean {
  return args.some((arg) => arg === '--rule-set' || arg.startsWith('--rule-set='));
}

const SCOPES: readonly OverlayScope[] = ['user', 'project', 'conversation'];

/**
 * `rules-lint eval --rule-set ID --tool NAME [--input JSON] [--rules FILE]
 * [--mode M] [--user FILE] [--project FILE] [--conversation FILE]`: decides
 * one model call under a permission rule set (spec 003) and prints the rule
 * set layer's verdict and deciding rule as JSON. With `--rules` (a profile
 * or rule list) it also reads the file's tool manifest, custom sets and
 * project root, and prints the composed decision with its deciding layer.
 * Exit 1 when a file is not valid (its findings on stderr). Throws UsageError.
 */
export async function evalRuleSetCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommand(
    'eval',
    args,
    {
      'rule-set': { type: 'string' },
      rules: { type: 'string' },
      mode: { type: 'string' },
      tool: { type: 'string' },
      input: { type: 'string' },
      user: { type: 'string' },
      project: { type: 'string' },
      conversation: { type: 'string' },
    },
    { min: 0, max: 0, name: '' },
  );
  const ruleSetId = requiredOption(values, 'rule-set', 'eval');
  const tool = requiredOption(values, 'tool', 'eval');
  const input = parseInput(values.input);
  const overlays: { -readonly [K in keyof ActiveOverlays]: ActiveOverlays[K] } = {};
  for (const scope of SCOPES) {
    const path = values[scope];
    if (typeof path !== 'string') continue;
    const document = await requireDocument(path, io.cwd);
    const validated = validateOverlayDocument(document.value, scope);
    if (!validated.ok) {
      const findings = permissionFindings(document, 'overlay', scope);
      io.stderr(renderPretty([{ file: path, findings, lines: document.lines }]));
      return EXIT.findings;
    }
    overlays[scope] = validated.value;
  }
  const rulesPath = typeof values.rules === 'string' ? values.rules : undefined;
  const document = rulesPath ? await requireDocument(rulesPath, io.cwd) : undefined;
  const file = document ? readRuleFile(document.value) : undefined;
  const policy = document && file ? acceptedPolicy(document, file) : undefined;
  if (document && file && !policy) {
    const findings = lintDocument(document, file, { rules: [] });
    io.stderr(renderPretty([{ file: rulesPath!, findings, lines: document.lines }]));
    return EXIT.findings;
  }
  const mode =
    choiceOption(values.mode, 'mode', ApprovalModeSchema.options) ??
    (file && runningMode(file)) ??
    'bypass';
  const profile = (document?.value ?? {}) as Record<string, unknown>;
  const result = evaluateRuleSetCall(
    {
      ruleSetId,
      mode,
      tool,
      input,
      configuration: {
        manifest: profile.tool_manifest as ToolManifest | undefined,
        customRuleSets: profile.custom_rule_sets as unknown[] | undefined,
        projectRoot: profile.project_root as string | undefined,
      },
      overlays,
    },
    policy
      ? decide(policy, { mode, origin: 'model', toolName: tool, toolInput: input })
      : undefined,
  );
  const output = {
    ...(result.decision ? { decision: result.decision } : {}),
    rule_set_layer: result.layer,
    fallback: result.fallback,
    targets: result.targets.map(({ kind, text, rooted }) => ({ kind, text, rooted })),
  };
  io.stdout(`${JSON.stringify(output, null, 2)}\n`);
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
