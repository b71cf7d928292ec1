/**
 * Benchmark (a script, not a test): times `rules-lint check` on a generated
 * 1000-rule file as a spawned process (Node start-up included), and the
 * shadowed-allow and redundant-rule checks in process. Prints figures:
 * "first" is a cold run (in process, later runs reuse remembered glob
 * answers; a spawned process is always cold).
 * Run after building: `node packages/rules-lint/dist/scripts/bench.js`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ruleEntries } from '../analysis/rule-entry.js';
import { lintText } from '../lint.js';
import { shadowedAllow } from '../rules/correctness/shadowed-allow/rule.js';
import type { LintContext } from '../rules/lint-rule.js';
import { redundantRule } from '../rules/style/redundant-rule/rule.js';

const CLI = fileURLToPath(new URL('../cli.js', import.meta.url));
const TOOLS = Array.from({ length: 60 }, (_, index) => `tool_${index}`);
const MATCHES = [
  '*rm -rf*',
  'ls*',
  '*git push*',
  '*.env',
  'cat *',
  '*sudo*',
  '/tmp/*',
  '*--force*',
];

/** A deterministic mix: mostly literal tools, some globs and alternatives, paths, all verdicts and origins. */
function generateRules(count: number, wildcardShare: number): object[] {
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  return Array.from({ length: count }, (_, index) => {
    const roll = random();
    const tool =
      roll < wildcardShare
        ? `${pick(TOOLS).slice(0, 6)}*`
        : roll < wildcardShare + 0.1
          ? `${pick(TOOLS)}|${pick(TOOLS)}`
          : pick(TOOLS);
    const verdict = pick(['allow', 'allow', 'ask', 'deny'] as const);
    const rule: Record<string, string> = { tool, verdict };
    if (random() < 0.6) {
      rule.path = pick(['command', 'path', 'args']);
      rule.match = pick(MATCHES);
    }
    if (verdict === 'deny') rule.reason = `rule ${index} says no`;
    if (random() < 0.1) rule.origin = pick(['author', 'kernel']);
    return rule;
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function timeSpawn(args: string[], runs: number): number[] {
  return Array.from({ length: runs }, () => {
    const started = performance.now();
    spawnSync(process.execPath, args, { stdio: 'ignore' });
    return performance.now() - started;
  });
}

function timeInProcess(work: () => unknown, runs: number): number[] {
  return Array.from({ length: runs }, () => {
    const started = performance.now();
    work();
    return performance.now() - started;
  });
}

function contextOf(rules: object[]): LintContext {
  return {
    rules: ruleEntries(rules, ''),
    listLength: rules.length,
    mode: 'rules',
    toolAliases: {},
    tools: undefined,
  };
}

function line(label: string, times: number[]): void {
  const fixed = (value: number) => value.toFixed(1).padStart(8);
  process.stdout.write(
    `${label.padEnd(58)} first ${fixed(times[0]!)} ms   median ${fixed(median(times))} ms   max ${fixed(Math.max(...times))} ms\n`,
  );
}

const dir = mkdtempSync(join(tmpdir(), 'rules-lint-bench-'));
const rules = generateRules(1000, 0.1);
const file = join(dir, 'rules-1000.json');
const text = JSON.stringify(rules, null, 2);
writeFileSync(file, text);
process.stdout.write(`node ${process.version}, ${rules.length} rules, ${text.length} bytes\n`);
// In-process figures first, while no glob answer is remembered yet ("first" is then cold).
const mixed = contextOf(rules);
line(
  'shadowed-allow, 1000 rules (10% wildcard tools), 10 runs',
  timeInProcess(() => shadowedAllow.check(mixed), 10),
);
line(
  'redundant-rule, 1000 rules (10% wildcard tools), 10 runs',
  timeInProcess(() => redundantRule.check(mixed), 10),
);
line(
  'lintText, whole catalog, in process, 10 runs',
  timeInProcess(() => lintText(file, text), 10),
);
line('node -e "" (start-up alone), 10 runs', timeSpawn(['-e', ''], 10));
line(
  'rules-lint check rules-1000.json (spawned), 10 runs',
  timeSpawn([CLI, 'check', '--format', 'json', file], 10),
);
const wild = contextOf(generateRules(1000, 0.9));
line(
  'shadowed-allow, 1000 rules (90% wildcard tools), 5 runs',
  timeInProcess(() => shadowedAllow.check(wild), 5),
);
const star = contextOf(
  Array.from({ length: 1000 }, (_, index) =>
    index % 2 === 0
      ? {
          tool: '*',
          path: 'command',
          match: `*${MATCHES[index % MATCHES.length]}`,
          verdict: 'deny',
          reason: 'x',
        }
      : {
          tool: `tool_${index % 60}`,
          path: 'command',
          match: `${MATCHES[index % MATCHES.length]}`,
          verdict: 'allow',
        },
  ),
);
line(
  'shadowed-allow, 1000 rules, 500 "*" denies vs 500 allows, 3 runs',
  timeInProcess(() => shadowedAllow.check(star), 3),
);
