/**
 * Benchmark (a script, not a test): times `rules-lint check` as a spawned
 * process (Node start-up included) on a realistic mixed list, shell-heavy
 * policies of 1000 and 10,000 rules and the adversarial lists of issue 10,
 * and the three analyses that compare rules in process. Prints figures:
 * "first" is a cold run (in process, later runs reuse remembered glob
 * answers; a spawned process is always cold); wall times and the median
 * CPU time (user + system) are printed, since a shared machine stretches
 * wall time.
 * Run after building: `pnpm bench:lint`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ruleEntries } from '../analysis/rule-entry.js';
import { lintText } from '../lint.js';
import { shadowedAllow } from '../rules/correctness/shadowed-allow/rule.js';
import { shadowedAsk } from '../rules/correctness/shadowed-ask/rule.js';
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

/** Wall time and CPU time (user + system) of one run, in ms. */
interface Timing {
  readonly wall: number;
  readonly cpu: number;
}

const TIME = '/usr/bin/time';
const hasTime = existsSync(TIME);

/** Spawns a process `runs` times; its CPU time comes from /usr/bin/time when there is one. */
function timeSpawn(args: string[], runs: number): Timing[] {
  return Array.from({ length: runs }, () => {
    const started = performance.now();
    const result = hasTime
      ? spawnSync(TIME, ['-f', '%U %S', process.execPath, ...args], {
          stdio: ['ignore', 'ignore', 'pipe'],
          encoding: 'utf8',
        })
      : spawnSync(process.execPath, args, { stdio: 'ignore' });
    const wall = performance.now() - started;
    const [user, system] = (
      hasTime ? (result.stderr as string).trim().split('\n').at(-1)! : 'NaN NaN'
    )
      .split(' ')
      .map(Number);
    return { wall, cpu: (user! + system!) * 1000 };
  });
}

function timeInProcess(work: () => unknown, runs: number): Timing[] {
  return Array.from({ length: runs }, () => {
    const started = performance.now();
    const cpu = process.cpuUsage();
    work();
    const used = process.cpuUsage(cpu);
    return { wall: performance.now() - started, cpu: (used.user + used.system) / 1000 };
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

function line(label: string, times: Timing[]): void {
  const fixed = (value: number) =>
    Number.isNaN(value) ? '     n/a' : value.toFixed(1).padStart(8);
  const walls = times.map((time) => time.wall);
  const cpus = times.map((time) => time.cpu);
  process.stdout.write(
    `${label.padEnd(66)} first ${fixed(walls[0]!)} ms   median ${fixed(median(walls))} ms   max ${fixed(Math.max(...walls))} ms   CPU median ${fixed(median(cpus))} ms\n`,
  );
}

const dir = mkdtempSync(join(tmpdir(), 'rules-lint-bench-'));

function writeList(name: string, rules: object[]): { file: string; text: string } {
  const file = join(dir, `${name}.json`);
  const text = JSON.stringify(rules, null, 2);
  writeFileSync(file, text);
  return { file, text };
}

process.stdout.write(
  `node ${process.version}; load average ${loadavg()
    .map((load) => load.toFixed(1))
    .join(' ')} on ${cpus().length} CPUs (wall times stretch under load; CPU times do not)\n`,
);
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
    `shadowed-ask, ${list.label}, 3 runs`,
    timeInProcess(() => shadowedAsk.check(context), 3),
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
