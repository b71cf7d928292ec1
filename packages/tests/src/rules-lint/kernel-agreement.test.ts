import { lintText } from '@airlock/rules-lint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKernel, type TestKernel } from '../support/kernel.js';

// The linter must never disagree with the kernel about whether a profile is valid: each text
// (as a rule file carries it, JSON escapes included) is put to a real kernel and linted.
const PROFILES: Record<string, string> = {
  clean: '{"approval_mode": "rules", "approval_rules": [{"tool": "bash", "verdict": "allow"}]}',
  'NUL in a reason':
    '{"approval_mode": "rules", "approval_rules": [{"tool": "bash", "verdict": "deny", "reason": "no \\u0000 here"}]}',
  'lone surrogate in a reason':
    '{"approval_mode": "rules", "approval_rules": [{"tool": "bash", "verdict": "deny", "reason": "x \\ud800"}]}',
  'lone surrogate in an alias key':
    '{"approval_mode": "rules", "tool_aliases": {"run\\udc00": "bash"}, "approval_rules": []}',
  'NUL in a contract constraint':
    '{"approval_mode": "bypass", "action_contract": {"contract_version": 1, "constraints": ["keep \\u0000 backups"], "authorization": {}}}',
  'NUL in a pattern':
    '{"approval_mode": "rules", "approval_rules": [{"tool": "bash", "path": "command", "match": "*\\u0000*", "verdict": "deny", "reason": "nul"}]}',
  'an unknown key':
    '{"approval_mode": "rules", "approval_rules": [{"tool": "bash", "verdict": "allow", "colour": "red"}]}',
  'a key written twice':
    '{"approval_mode": "rules", "approval_rules": [{"tool": "bash", "verdict": "deny", "verdict": "allow"}]}',
  'an integer past 2^53 in a tool schema':
    '{"approval_mode": "rules", "approval_rules": [], "tool_manifest": [{"name": "edit", "risk_traits": [], "input_schema": {"type": "integer", "maximum": 9007199254740993}}]}',
  'a number past the largest double':
    '{"approval_mode": "rules", "approval_rules": [], "tool_manifest": [{"name": "edit", "risk_traits": [], "input_schema": {"type": "number", "maximum": 1e400}}]}',
  'large numbers every reader takes as written':
    '{"approval_mode": "rules", "approval_rules": [], "tool_manifest": [{"name": "edit", "risk_traits": [], "input_schema": {"type": "number", "maximum": 9007199254740991, "minimum": -1.5e300}}]}',
  'a bounded tool manifest': manifestProfile({
    type: 'object',
    properties: {
      tags: { type: 'array', uniqueItems: true, items: { type: 'string' } },
      id: { type: 'string', pattern: '^[a-z]{1,64}$' },
    },
  }),
  'an unbounded uniqueItems under a property named default': manifestProfile({
    type: 'object',
    properties: { default: { type: 'array', uniqueItems: true } },
  }),
  'a patternProperties pattern of 300 counted repetitions': manifestProfile({
    type: 'object',
    patternProperties: { '[a-z]{300}': { type: 'string' } },
  }),
  'a tool schema nesting past the request guard': manifestProfile({
    items: JSON.parse(`${'['.repeat(61)}${']'.repeat(61)}`),
  }),
  'a tool schema with a __proto__ property': manifestProfile(
    JSON.parse('{"type": "object", "properties": {"__proto__": {"type": "string"}}}'),
  ),
  'an enum past the size bound under a property named enum': manifestProfile({
    type: 'object',
    properties: { enum: { enum: Array.from({ length: 3000 }, (_, i) => i) } },
  }),
};

/** A profile whose tool manifest declares one tool with this input schema. */
function manifestProfile(inputSchema: Record<string, unknown>): string {
  return JSON.stringify({
    approval_mode: 'rules',
    approval_rules: [],
    tool_manifest: [{ name: 'edit', risk_traits: ['write'], input_schema: inputSchema }],
  });
}

let kernel: TestKernel;

beforeAll(async () => {
  kernel = await startTestKernel();
});

afterAll(async () => {
  await kernel?.close();
});

/** The kernel's answer to a profile put: the problems it refused it for, or [] when it took it. */
async function kernelProblems(text: string): Promise<string[]> {
  // Sent as written (a key twice included): none carries `$schema` or `examples`, the keys a
  // file keeps from the kernel.
  const response = await fetch(`${kernel.url}/agent_api/v1/profile/configuration`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${kernel.workspace.tokens.agent}`,
      'content-type': 'application/json',
    },
    body: text,
  });
  if (response.ok) return [];
  const body = (await response.json()) as {
    error: { code: string; problems?: { code: string; pointer: string }[] };
  };
  // The request guard answers before the validator: input_too_deep names no pointer.
  if (body.error.code === 'input_too_deep') return ['input_too_deep'];
  expect(body.error.code).toMatch(/^(invalid_configuration|invalid_input|invalid_json)$/);
  return (body.error.problems ?? []).map((problem) => `${problem.code} ${problem.pointer}`);
}

describe('rules-lint and the kernel agree on a profile', () => {
  for (const [name, text] of Object.entries(PROFILES)) {
    it(name, async () => {
      const outcome = lintText('agent.json', text);
      if (!outcome.ok) throw new Error(outcome.message);
      // duplicate-key is the linter's name for the kernel's duplicate_key (an error by default).
      const errors = outcome.findings
        .filter((finding) => finding.source === 'declaration' || finding.code === 'duplicate-key')
        .map(
          (finding) =>
            `${finding.code.replace('duplicate-key', 'duplicate_key')} ${finding.pointer}`,
        );
      const refused = await kernelProblems(text);
      // The kernel stops at its first check that fails; the linter reports every check's problems.
      expect(errors.length > 0).toBe(refused.length > 0);
      const codes = errors.map((error) => error.split(' ')[0]);
      for (const problem of refused) {
        if (problem.includes(' ')) expect(errors).toContain(problem);
        else expect(codes).toContain(problem);
      }
    });
  }
});
