/**
 * Benchmark (a script, not a test): times `rules-lint check` as a spawned
 * process (Node start-up included) on a realistic mixed list, shell-heavy
 * policies of 1000 and 10,000 rules and the adversarial lists of issue 10,
 * and the two analyses that compare rules in process. Prints figures:
 * "first" is a cold run (in process, later runs reuse remembered glob
 * answers; a spawned process is always cold).
 * Run after building: `pnpm bench:lint`.
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
import {
  mixedRules,
  overlappingDeniesAndAllows,
  shellRules,
  starDeniesAndAllows,
  tokenDenies,
} from './bench-lists.js';

const CLI = fileURLToPath(new URL('../cli.js', import.meta.url));

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
    `${label.padEnd(66)} first ${fixed(times[0]!)} ms   median ${fixed(median(times))} ms   max ${fixed(Math.max(...times))} ms\n`,
  );
}

const dir = mkdtempSync(join(tmpdir(), 'rules-lint-bench-'));

function writeList(name: string, rules: object[]): { file: string; text: string } {
  const file = join(dir, `${name}.json`);
  const text = JSON.stringify(rules, null, 2);
  writeFileSync(file, text);
  return { file, text };
}

process.stdout.write(`node ${process.version}\n`);
const lists: { name: string; label: string; rules: object[] }[] = [
  {
    name: 'mixed-1000',
    label: '1000 mixed rules (10% wildcard tools)',
    rules: mixedRules(1000, 0.1),
  },
  {
    name: 'mixed-wild-1000',
    label: '1000 mixed rules (90% wildcard tools)',
    rules: mixedRules(1000, 0.9),
  },
  {
    name: 'shell-860',
    label: '860 shell-heavy rules (about the envelope)',
    rules: shellRules(860),
  },
  { name: 'shell-1000', label: '1000 shell-heavy rules', rules: shellRules(1000) },
  { name: 'shell-10000', label: '10,000 shell-heavy rules', rules: shellRules(10_000) },
  { name: 'tokens-500', label: '500 distinct "*tokN*" denies', rules: tokenDenies(500) },
  {
    name: 'overlap-64-100',
    label: '64 overlapping denies, 100 allows',
    rules: overlappingDeniesAndAllows(),
  },
  { name: 'star-500-500', label: '500 "*" denies vs 500 allows', rules: starDeniesAndAllows() },
];

// In-process figures first, while no glob answer is remembered yet ("first" is then cold).
for (const list of lists) {
  const context = contextOf(list.rules);
  line(
    `shadowed-allow, ${list.label}, 3 runs`,
    timeInProcess(() => shadowedAllow.check(context), 3),
  );
  line(
    `redundant-rule, ${list.label}, 3 runs`,
    timeInProcess(() => redundantRule.check(context), 3),
  );
}
const mixed = writeList('mixed-in-process', lists[0]!.rules);
line(
  'lintText, whole catalog, 1000 mixed rules, 5 runs',
  timeInProcess(() => lintText(mixed.file, mixed.text), 5),
);
line('node -e "" (start-up alone), 5 runs', timeSpawn(['-e', ''], 5));
for (const list of lists) {
  const { file, text } = writeList(list.name, list.rules);
  line(
    `rules-lint check, ${list.label} (${Math.round(text.length / 1024)} KiB), spawned, 3 runs`,
    timeSpawn([CLI, 'check', '--format', 'json', file], 3),
  );
}
