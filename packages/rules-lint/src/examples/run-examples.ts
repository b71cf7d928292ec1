import {
  type ApprovalMode,
  ApprovalModeSchema,
  DecisionOutcomeSchema,
  OriginSchema,
  type Policy,
} from '@airlock/core';
import { evaluateCall } from '../evaluate/evaluate-call.js';
import type { Finding } from '../findings.js';
import { locatePointer, type SourceDocument } from '../source/document.js';

const EXAMPLE_KEYS = new Set(['tool', 'input', 'origin', 'mode', 'expect']);

/** What running a file's examples gave: how many ran and a finding for each failure. */
export interface ExampleRun {
  readonly total: number;
  readonly passed: number;
  readonly findings: Finding[];
}

/**
 * Runs `examples: [{tool, input, origin?, mode?, expect}]` against the
 * file's policy with core's evaluator. A malformed example or one whose
 * outcome differs from `expect` is an error finding at the example. With
 * no policy (the declaration is refused, or `check` only looks at the
 * shape) the examples are checked but not run.
 */
export function runExamples(options: {
  document: SourceDocument;
  examples: unknown;
  policy: Policy | undefined;
  mode: ApprovalMode | undefined;
}): ExampleRun {
  const { document, examples, policy, mode } = options;
  const findings: Finding[] = [];
  const report = (code: string, pointer: string, message: string) =>
    findings.push({
      code,
      source: 'example',
      severity: 'error',
      message,
      pointer,
      location: locatePointer(document, pointer),
    });
  if (examples === undefined) return { total: 0, passed: 0, findings };
  if (!Array.isArray(examples)) {
    report(
      'examples_not_array',
      '/examples',
      'examples must be an array of {tool, input, origin?, mode?, expect}',
    );
    return { total: 0, passed: 0, findings };
  }
  let passed = 0;
  examples.forEach((example: unknown, index) => {
    const at = `/examples/${index}`;
    const before = findings.length;
    if (example === null || typeof example !== 'object' || Array.isArray(example)) {
      report(
        'example_invalid',
        at,
        `example ${index} must be an object {tool, input, origin?, mode?, expect}`,
      );
      return;
    }
    const fields = example as Record<string, unknown>;
    for (const key of Object.keys(fields)) {
      if (!EXAMPLE_KEYS.has(key))
        report(
          'example_invalid',
          `${at}/${key}`,
          `"${key}" is not an example key; use tool, input, origin, mode and expect`,
        );
    }
    if (typeof fields.tool !== 'string' || fields.tool === '')
      report(
        'example_invalid',
        `${at}`,
        `example ${index} needs "tool": the tool name of the call`,
      );
    const origin =
      fields.origin === undefined ? 'model' : OriginSchema.safeParse(fields.origin).data;
    if (!origin)
      report('example_invalid', `${at}/origin`, 'origin must be model, author or kernel');
    const exampleMode =
      fields.mode === undefined ? mode : ApprovalModeSchema.safeParse(fields.mode).data;
    if (!exampleMode) {
      report(
        'example_invalid',
        fields.mode === undefined ? at : `${at}/mode`,
        fields.mode === undefined
          ? `example ${index} needs "mode": the file declares no approval_mode`
          : 'mode must be bypass, ask or rules',
      );
    }
    const expected = DecisionOutcomeSchema.safeParse(fields.expect).data;
    if (!expected)
      report(
        'example_invalid',
        fields.expect === undefined ? at : `${at}/expect`,
        'expect must be granted, parked or denied',
      );
    if (findings.length > before || !origin || !exampleMode || !expected || !policy) return;
    const result = evaluateCall(policy, {
      mode: exampleMode,
      origin,
      tool: fields.tool as string,
      input: fields.input ?? {},
    });
    if (result.outcome === expected) {
      passed += 1;
      return;
    }
    const why = result.error
      ? ` (${result.error.detail})`
      : result.granted_by
        ? ` (by ${result.granted_by})`
        : '';
    const matched =
      result.matched.length > 0 ? `rules ${result.matched.join(', ')} matched` : 'no rule matched';
    report(
      'example_failed',
      `${at}/expect`,
      `example ${index}: expected ${expected}, but ${fields.tool as string} is ${result.outcome}${why}; ${matched}`,
    );
  });
  return { total: examples.length, passed, findings };
}
