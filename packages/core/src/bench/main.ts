/**
 * Benchmark of the approval stage. Prints, in one run: today's mixed
 * workload (50, 200, 1000 rules, `bash` kept small); a shell-heavy one (up to
 * the most rules that fit in the 64 KiB envelope, most of them on `bash`)
 * with growth from 50 rules to the maximum; ns per byte on long commands;
 * and the glob worst cases over 1 MiB. Every table sets `decide` beside a
 * naive RegExp scan and a Map-plus-startsWith floor. Asserts nothing.
 */
import { availableParallelism, loadavg } from 'node:os';
import {
  type ApprovalRule,
  type Decision,
  decide,
  type ToolCall,
  validateRuleList,
} from '../index.js';
import { floorEvaluator, naiveEvaluator } from './baselines.js';
import { printGlobWorstCases } from './glob-worst-cases.js';
import { printWhereTheMeanGoes } from './mean-breakdown.js';
import {
  format,
  latencies,
  plainLoopNsPerUnit,
  throughput,
  throughputSideBySide,
  timerOverhead,
} from './measure.js';
import { heredoc, makeShellCalls, makeShellRules } from './shell-workload.js';
import { makeCalls, makeRules, seededRandom } from './workload.js';

const CALLS = 10_000;

function sameDecision(a: Decision, b: Decision): boolean {
  return (
    a.outcome === b.outcome &&
    a.granted_by === b.granted_by &&
    a.error?.detail === b.error?.detail &&
    a.tool_name === b.tool_name &&
    a.matched.join() === b.matched.join()
  );
}

function compile(rules: ApprovalRule[]) {
  const validated = validateRuleList(rules);
  if (!validated.ok)
    throw new Error(`benchmark rules are invalid: ${JSON.stringify(validated.problems[0])}`);
  return validated.value;
}

const HEADER = [
  'rules | airlock decisions/s | p50 ns | p99 ns | naive decisions/s | p50 ns | p99 ns | floor decisions/s | vs naive | vs floor',
  '----- | ------------------- | ------ | ------ | ----------------- | ------ | ------ | ----------------- | -------- | --------',
];

/** What one row measured, for the summary against the targets. */
interface RowFigures {
  readonly meanNs: number;
  readonly rate: number;
  readonly p50: number;
  readonly vsNaive: number;
}

/** Measures one policy size and prints its row. */
function measureRow(
  rules: ApprovalRule[],
  calls: readonly ToolCall[],
  overhead: number,
): RowFigures {
  const policy = compile(rules);
  const naive = naiveEvaluator(rules);
  const floor = floorEvaluator(rules);
  const disagreements = calls.filter(
    (call) => !sameDecision(decide(policy, call), naive(call)),
  ).length;
  if (disagreements > 0)
    throw new Error(`the naive baseline disagrees with decide on ${disagreements} calls`);
  const [ours, naiveRate, floorRate] = throughputSideBySide(calls, [
    (call) => decide(policy, call),
    naive,
    floor,
  ]) as [number, number, number];
  const ourLatency = latencies(calls, (call) => decide(policy, call), overhead);
  const naiveLatency = latencies(calls, naive, overhead);
  console.log(
    [
      String(rules.length).padStart(5),
      format(ours).padStart(19),
      String(ourLatency.p50).padStart(6),
      String(ourLatency.p99).padStart(6),
      format(naiveRate).padStart(17),
      String(naiveLatency.p50).padStart(6),
      String(naiveLatency.p99).padStart(6),
      format(floorRate).padStart(17),
      `${(ours / naiveRate).toFixed(1)}x`.padStart(8),
      `${(ours / floorRate).toFixed(2)}x`.padStart(8),
    ].join(' | '),
  );
  return { meanNs: 1e9 / ours, rate: ours, p50: ourLatency.p50, vsNaive: ours / naiveRate };
}

/** ns per UTF-8 byte of `decide` on long heredoc commands at the largest policy; returns the worst. */
function printLongCommands(rules: ApprovalRule[]): number {
  let worst = 0;
  const policy = compile(rules);
  const random = seededRandom(5);
  for (const wide of [false, true]) {
    const calls: ToolCall[] = Array.from({ length: 200 }, () => ({
      mode: 'rules',
      origin: 'model',
      toolName: 'bash',
      toolInput: { command: heredoc(1536 + Math.floor(random() * 2560), random, wide) },
    }));
    const bytes = calls.reduce(
      (sum, call) => sum + Buffer.byteLength((call.toolInput as { command: string }).command),
      0,
    );
    const rate = throughput(calls, (call) => decide(policy, call));
    const nsPerByte = 1e9 / rate / (bytes / calls.length);
    worst = Math.max(worst, nsPerByte);
    console.log(
      `  ${wide ? 'heredocs, half the lines non-ASCII' : 'heredocs, ASCII'}: ${(bytes / calls.length).toFixed(0)} bytes mean, ${format(1e9 / rate)} ns per decision, ${nsPerByte.toFixed(2)} ns per byte`,
    );
  }
  return worst;
}

console.log(
  `Airlock core benchmark: node ${process.version}, ${format(CALLS)} mixed calls per size\n`,
);
console.log(
  `load average at start: ${loadavg()
    .map((n) => n.toFixed(1))
    .join(
      ' / ',
    )} on ${availableParallelism()} cores; a plain loop reading every UTF-16 unit of 1 MiB: ${plainLoopNsPerUnit().toFixed(2)} ns per unit (this machine's pace now)`,
);
const overhead = timerOverhead();
console.log(
  `(decisions/s are per CPU second of this process, so other load on the machine does not count; p50/p99 are wall-clock per call, the timer's own median cost, ${overhead} ns, subtracted)\n`,
);

console.log("Today's workload (bash at 10 rules, the rest spread over service tools):");
for (const line of HEADER) console.log(line);
const mixed = [50, 200, 1000].map((size) =>
  measureRow(makeRules(size), makeCalls(CALLS, size), overhead),
);
console.log(
  `mean ns per decision at 50 / 200 / 1000 rules: ${mixed.map((row) => row.meanNs.toFixed(0)).join(' / ')}`,
);

const fullShell = makeShellRules();
const bashCount = fullShell.filter((rule) => rule.tool === 'bash').length;
const leadingStar = fullShell.filter((rule) => rule.match?.startsWith('*')).length;
console.log(
  `\nShell-heavy workload (max ${fullShell.length} rules in ${format(Buffer.byteLength(JSON.stringify(fullShell)))} bytes of JSON, ${bashCount} on bash, ${leadingStar} with a leading *; 1% heredocs of 1.5-4 KiB):`,
);
for (const line of HEADER) console.log(line);
const shellCalls = makeShellCalls(CALLS);
const shell = [50, 200, 500, fullShell.length].map((size) =>
  measureRow(makeShellRules(size), shellCalls, overhead),
);
const largest = shell[shell.length - 1]!;
const growth = largest.meanNs / shell[0]!.meanNs;
console.log(
  `mean ns per decision at 50 / 200 / 500 / ${fullShell.length} rules: ${shell.map((row) => row.meanNs.toFixed(0)).join(' / ')}; growth from 50 to ${fullShell.length}: ${growth.toFixed(2)}x`,
);

console.log(
  `\nWhere the mean goes at ${fullShell.length} rules (${format(largest.meanNs)} ns, mixed), each kind of call timed alone:`,
);
printWhereTheMeanGoes(compile(fullShell), shellCalls);

console.log(`\nLong commands at ${fullShell.length} rules:`);
const nsPerByte = printLongCommands(fullShell);
const worstGlobMs = printGlobWorstCases();

const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
console.log(`\nAgainst issue 10's targets, shell-heavy workload at ${fullShell.length} rules:`);
for (const [label, figure, target, met] of [
  ['mean decisions/s', format(largest.rate), 'at least 5,000,000', largest.rate >= 5e6],
  ['p50', `${largest.p50} ns`, 'at most 150 ns', largest.p50 <= 150],
  [
    'vs the naive RegExp scan',
    `${largest.vsNaive.toFixed(0)}x`,
    'at least 400x',
    largest.vsNaive >= 400,
  ],
  ['growth from 50 rules', `${growth.toFixed(2)}x`, 'at most 1.25x', growth <= 1.25],
  ['long commands', `${nsPerByte.toFixed(2)} ns per byte`, 'at most 2', nsPerByte <= 2],
  [
    'slowest glob worst case on 1 MiB',
    `${worstGlobMs.toFixed(1)} ms`,
    'at most 20 ms',
    worstGlobMs <= 20,
  ],
] as const) {
  console.log(
    `  ${label.padEnd(34)} ${figure.padStart(18)}   target ${target.padEnd(20)} ${verdict(met)}`,
  );
}
console.log(
  `\nload average at end: ${loadavg()
    .map((n) => n.toFixed(1))
    .join(' / ')}`,
);
