/**
 * Benchmark of the approval stage: decisions per second and per-decision
 * latency for 50, 200 and 1000 rules over 10,000 mixed calls, beside a naive
 * RegExp scan and a Map-plus-startsWith floor measured in the same run; and
 * the pathological glob over 1 MiB. Prints figures; asserts nothing.
 */
import { compileGlob, type Decision, decide, type ToolCall, validateRuleList } from '../index.js';
import { floorEvaluator, naiveEvaluator } from './baselines.js';
import { makeCalls, makeRules } from './workload.js';

const CALLS = 10_000;
const MIN_SECONDS = 0.6;

function throughput(calls: readonly ToolCall[], run: (call: ToolCall) => unknown): number {
  let sink = 0;
  for (const call of calls) if (run(call)) sink++;
  let rounds = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  while (elapsed < MIN_SECONDS) {
    for (const call of calls) if (run(call)) sink++;
    rounds++;
    elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  }
  if (sink < 0) console.log(sink);
  return (rounds * calls.length) / elapsed;
}

function timerOverhead(): number {
  const samples: number[] = [];
  for (let i = 0; i < 20_000; i++) {
    const start = process.hrtime.bigint();
    samples.push(Number(process.hrtime.bigint() - start));
  }
  return percentile(samples, 0.5);
}

function latencies(calls: readonly ToolCall[], run: (call: ToolCall) => unknown, overhead: number) {
  const samples: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const call of calls) {
      const start = process.hrtime.bigint();
      run(call);
      samples.push(Math.max(0, Number(process.hrtime.bigint() - start) - overhead));
    }
  }
  return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99) };
}

function percentile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function sameDecision(a: Decision, b: Decision): boolean {
  return (
    a.outcome === b.outcome &&
    a.granted_by === b.granted_by &&
    a.error?.detail === b.error?.detail &&
    a.tool_name === b.tool_name &&
    a.matched.join() === b.matched.join()
  );
}

const format = (n: number) => Math.round(n).toLocaleString('en-US');

console.log(
  `Airlock core benchmark: node ${process.version}, ${CALLS.toLocaleString('en-US')} mixed calls per size\n`,
);
const overhead = timerOverhead();
console.log(`(per-call latencies have the timer's own median cost, ${overhead} ns, subtracted)\n`);
console.log(
  'rules | airlock decisions/s | p50 ns | p99 ns | naive decisions/s | p50 ns | p99 ns | floor decisions/s | vs naive | vs floor',
);
console.log(
  '----- | ------------------- | ------ | ------ | ----------------- | ------ | ------ | ----------------- | -------- | --------',
);
const perDecision: number[] = [];
for (const size of [50, 200, 1000]) {
  const rules = makeRules(size);
  const validated = validateRuleList(rules);
  if (!validated.ok)
    throw new Error(`benchmark rules are invalid: ${JSON.stringify(validated.problems[0])}`);
  const policy = validated.value;
  const calls = makeCalls(CALLS, size);
  const naive = naiveEvaluator(rules);
  const floor = floorEvaluator(rules);
  const disagreements = calls.filter(
    (call) => !sameDecision(decide(policy, call), naive(call)),
  ).length;
  if (disagreements > 0)
    throw new Error(`the naive baseline disagrees with decide on ${disagreements} calls`);
  const ours = throughput(calls, (call) => decide(policy, call));
  const naiveRate = throughput(calls, naive);
  const floorRate = throughput(calls, floor);
  const ourLatency = latencies(calls, (call) => decide(policy, call), overhead);
  const naiveLatency = latencies(calls, naive, overhead);
  perDecision.push(1e9 / ours);
  console.log(
    [
      String(size).padStart(5),
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
}
console.log(
  `\nmean ns per decision at 50 / 200 / 1000 rules: ${perDecision.map((n) => n.toFixed(0)).join(' / ')}`,
);

const text = 'a'.repeat(1 << 20);
for (const pattern of [
  '*a*a*a*a*a*a*a*b',
  '*a*a*a*a*a*a*a*b*',
  '*a*a*a*a*a*a*a*b?',
  '*a?a*a*a*a*a*a*b*',
]) {
  const times: number[] = [];
  let matched = false;
  for (let i = 0; i < 5; i++) {
    const start = process.hrtime.bigint();
    const glob = compileGlob(pattern);
    matched = glob.ok && glob.value.matches(text);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  console.log(
    `${pattern.padEnd(18)} over 1 MiB of "a": ${Math.min(...times).toFixed(2)} ms best, ${Math.max(...times).toFixed(2)} ms worst of 5 (matched: ${matched})`,
  );
}
