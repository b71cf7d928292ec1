import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { decide, validateLifecycleHooks, validateRuleList } from '@airlock/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestKernel, type TestKernel } from '../support/kernel.js';
import { isKnownCommand } from './known-commands.js';
import { docSamples, REPO_ROOT, type Sample, where } from './samples.js';
import { typeCheck } from './type-check.js';

/*
 * Every fenced block of the docs pages is checked by its language and flags:
 *   ts                type-checked as its own module (strict, the packages by name)
 *   ts run            type-checked, then run against a fresh kernel (AIRLOCK_* env);
 *                     a ```text block right after it is the exact console output
 *   sh                every command is one the repository provides
 *   sh run            run with bash against a fresh kernel; must exit 0
 *   json rules        a valid rule list (core's validateRuleList)
 *   json invalid      an invalid rule list; the ```text block after it lists the problems
 *   json example      {mode, rules, calls: [{tool, input?, origin?, expect}]}: each call's
 *                     decision by core's evaluator is the expected outcome
 *   json hooks        a valid lifecycle_hooks declaration
 *   json, text        JSON must parse; text is output shown to the reader
 */
const samples = docSamples();
const run = promisify(execFile);

/** The ```text block shown right after a sample, if any. */
function shownOutput(sample: Sample): string | null {
  return sample.next?.lang === 'text' ? sample.next.code : null;
}

function samplesOf(lang: string, flag?: string): Sample[] {
  return samples.filter(
    (s) => s.lang === lang && (flag === undefined ? s.flags.length === 0 : s.flags.includes(flag)),
  );
}

describe('docs code samples', () => {
  let kernel: TestKernel;
  beforeAll(async () => {
    kernel = await startTestKernel();
  });
  afterAll(async () => {
    await kernel?.close();
  });

  const env = () => ({
    AIRLOCK_URL: kernel.url,
    AIRLOCK_WORKSPACE: kernel.workspace.id,
    AIRLOCK_TOKEN: kernel.workspace.tokens.member,
    AIRLOCK_AGENT_TOKEN: kernel.workspace.tokens.agent,
    AIRLOCK_EXECUTOR_TOKEN: kernel.workspace.tokens.executor,
  });

  it('has only blocks of a language the tests check', () => {
    const known = new Set(['ts', 'sh', 'json', 'text']);
    for (const sample of samples) expect(known.has(sample.lang), where(sample)).toBe(true);
    expect(samples.length).toBeGreaterThan(10);
  });

  it('type-checks every TypeScript sample', { timeout: 120_000 }, () => {
    const typescript = samples.filter((s) => s.lang === 'ts');
    expect(typeCheck(typescript)).toEqual([]);
  });

  it('the type check catches a wrong sample (so a pass means something)', {
    timeout: 120_000,
  }, () => {
    const wrong = (code: string): Sample => ({
      page: 'x.md',
      line: 1,
      lang: 'ts',
      flags: [],
      code,
      next: null,
    });
    const problems = typeCheck([
      wrong(
        "import { createClient } from '@airlock/sdk';\n" +
          "const runs: number = createClient({ url: 'u', token: 't' }).workspace('w').runs;\n",
      ),
      wrong(
        "import type { Decision } from '@airlock/sdk';\n" +
          'export const f = (d: Decision) => (d.isAsk() ? d.approve() : d.answer({ content: 1 }));\n',
      ),
    ]);
    expect(problems).toEqual([
      expect.stringMatching(/^x\.md:3: Type 'Runs' is not assignable to type 'number'/),
      expect.stringMatching(/^x\.md:3: Property 'approve' does not exist on type 'Question'/),
      expect.stringMatching(/^x\.md:3: Property 'answer' does not exist on type 'Approval'/),
    ]);
  });

  for (const sample of samplesOf('ts', 'run')) {
    it(`runs ${where(sample)} against a kernel`, async () => {
      // Inside packages/tests, so the packages a sample imports (the MCP SDK, servers) resolve.
      const dir = mkdtempSync(join(REPO_ROOT, 'packages', 'tests', '.sample-'));
      // Outside the workspace the package name does not resolve; point it at the source.
      const sdk = pathToFileURL(join(REPO_ROOT, 'packages', 'sdk', 'src', 'index.ts')).href;
      const file = join(dir, 'sample.ts');
      writeFileSync(file, sample.code.replaceAll("'@airlock/sdk'", `'${sdk}'`));
      const saved = { ...process.env };
      Object.assign(process.env, env());
      const printed: string[] = [];
      const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
        printed.push(args.map(String).join(' '));
      });
      try {
        await import(/* @vite-ignore */ pathToFileURL(file).href);
      } finally {
        log.mockRestore();
        process.env = saved;
        rmSync(dir, { recursive: true, force: true });
      }
      const output = shownOutput(sample);
      if (output !== null) expect(`${printed.join('\n')}\n`).toBe(output);
    });
  }

  it('knows a command the repository does not provide (so a pass means something)', () => {
    expect(isKnownCommand('pnpm exec airlock decisions list')).toBe(true);
    expect(isKnownCommand('pnpm exec airlock executor mcp --config x.json')).toBe(true);
    expect(isKnownCommand('pnpm --filter @airlock/server bench:statements -- --sql')).toBe(true);
    expect(isKnownCommand('pnpm exec airlock decide list')).toBe(false);
    expect(isKnownCommand('pnpm exec airlock executor http')).toBe(false);
    expect(isKnownCommand('pnpm exec no-such-bin')).toBe(false);
    expect(isKnownCommand('pnpm bench:nothing')).toBe(false);
    expect(isKnownCommand('pnpm --filter @airlock/server bench:nothing')).toBe(false);
  });

  it('shows only shell commands the repository provides', () => {
    for (const sample of samples.filter((s) => s.lang === 'sh' && !s.flags.includes('run'))) {
      const commands = sample.code
        .split('\n')
        .map((line) => line.replace(/\s+#.*$/, '').trim())
        .filter((line) => line !== '' && !line.startsWith('#'));
      for (const command of commands) {
        expect(isKnownCommand(command), `${where(sample)}: ${command}`).toBe(true);
      }
    }
  });

  for (const sample of samplesOf('sh', 'run')) {
    it(`runs ${where(sample)} with bash against a kernel`, async () => {
      const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', sample.code], {
        env: { ...process.env, ...env() },
        cwd: REPO_ROOT,
      });
      const output = shownOutput(sample);
      if (output !== null) expect(stdout).toBe(output);
    });
  }

  it('parses every JSON sample', () => {
    for (const sample of samples.filter((s) => s.lang === 'json')) {
      expect(() => JSON.parse(sample.code), where(sample)).not.toThrow();
    }
  });

  it('validates every rule list and hooks declaration', () => {
    for (const sample of samplesOf('json', 'rules')) {
      const validated = validateRuleList(JSON.parse(sample.code));
      expect(validated.ok ? [] : validated.problems, where(sample)).toEqual([]);
    }
    for (const sample of samplesOf('json', 'hooks')) {
      const validated = validateLifecycleHooks(JSON.parse(sample.code));
      expect(validated.ok ? [] : validated.problems, where(sample)).toEqual([]);
    }
  });

  it('refuses every invalid rule list with the problems shown', () => {
    for (const sample of samplesOf('json', 'invalid')) {
      const validated = validateRuleList(JSON.parse(sample.code));
      expect(validated.ok, where(sample)).toBe(false);
      if (validated.ok) continue;
      const shown = shownOutput(sample);
      const problems = validated.problems.map((p) => `${p.pointer}: ${p.code}`).join('\n');
      if (shown !== null) expect(`${problems}\n`, where(sample)).toBe(shown);
    }
  });

  it('decides every example call as the docs say', () => {
    for (const sample of samplesOf('json', 'example')) {
      const example = JSON.parse(sample.code) as {
        mode: 'bypass' | 'ask' | 'rules';
        rules: unknown[];
        calls: {
          tool: string;
          input?: unknown;
          origin?: 'model' | 'author' | 'kernel';
          expect: string;
        }[];
      };
      const policy = validateRuleList(example.rules);
      if (!policy.ok) throw new Error(`${where(sample)}: ${JSON.stringify(policy.problems)}`);
      for (const call of example.calls) {
        const decision = decide(policy.value, {
          mode: example.mode,
          origin: call.origin ?? 'model',
          toolName: call.tool,
          toolInput: call.input ?? {},
        });
        expect(
          decision.outcome,
          `${where(sample)}: ${call.tool} ${JSON.stringify(call.input)}`,
        ).toBe(call.expect);
      }
    }
  });
});
