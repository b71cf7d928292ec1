/*
 * Prints what a pre-tool hook costs each real coding agent per tool call: the agent does scripted
 * shell calls against its scripted model server with no hook, with a trivial always-allow hook (the
 * floor: a shell script, and for Claude Code also an HTTP hook on loopback), and with Airlock.
 * A call's latency is what the model server sees: from the end of the answer carrying the tool call
 * to the arrival of the request carrying its result (hook, tool and the agent's own work; never
 * the model's). Airlock's kernel runs in a process of its own, as `airlock serve` does beside an
 * agent: in the bench's process its work would hold up the model server's clock. One kernel serves
 * every Airlock session of the bench, warmed first with KERNEL_WARMUP granted event pairs (3000 by
 * default), as a kernel that has been up for a while is.
 *
 * Every variant runs ROUNDS times, the order rotating each round, so that a machine that drifts
 * during the bench moves every variant alike; a variant's p50 and p99 are over all its rounds'
 * calls, and the `rounds` column gives the lowest and highest ratio to the floor of one round.
 * Run: pnpm bench:hooks   (CALLS=30 calls per session, ROUNDS=3 by default; AGENTS=claude-code,codex
 * to measure only those agents, VARIANTS=http,trivial to keep only the variants whose name holds one
 * of those words, beside no hook)
 */
import { type AgentName, installedAgents } from '../src/agents/agent-binaries.js';
import { type AgentSandbox, createAgentSandbox, runAgent } from '../src/agents/agent-sandbox.js';
import { airlockVariants, type BenchKernel } from '../src/agents/airlock-variants.js';
import { floorVariants, type HookVariant, noHook } from '../src/agents/bench-variants.js';
import type { ModelServer } from '../src/agents/model-servers/scripted-server.js';
import { declareProfile } from '../src/frameworks/support.js';
import { claudeToolEvents, postClaudeEvent } from './claude-hook-events.js';
import { forkKernel } from './kernel-process.js';

/**
 * Warms a kernel the way one that has served for a while is: `pairs` granted `PreToolUse` and
 * `PostToolUse` events on Claude Code's hook endpoint (the hooked-session path every agent's
 * events take). V8 is still optimizing the kernel's code over its first few thousand requests.
 */
async function warmKernel(url: string, token: string, pairs: number): Promise<void> {
  await declareProfile(
    { url, token },
    { approval_mode: 'rules', approval_rules: [{ tool: '*', verdict: 'allow' }] },
  );
  for (let i = 0; i < pairs; i += 1) {
    for (const body of claudeToolEvents('warm-up', i)) await postClaudeEvent(url, token, body);
  }
}

/** How many event pairs warm the bench's kernel before the first session (3000 by default, about 15 s). */
const KERNEL_WARMUP = Number(process.env.KERNEL_WARMUP ?? 3000);

/**
 * The bench's one kernel, in a process of its own (on SQLite at full durability, no inbox in
 * front), started and warmed at the first Airlock session: every Airlock session talks to it, as
 * agents on a machine talk to one `airlock serve` that has been up for a while.
 */
let shared: Promise<{ url: string; agentToken: string; close: () => Promise<void> }> | null = null;
async function kernelProcess(): Promise<BenchKernel> {
  shared ??= (async () => {
    const forked = await forkKernel({ inbox: false });
    const agentToken = forked.workspace.tokens.agent;
    await warmKernel(forked.url, agentToken, KERNEL_WARMUP);
    console.error(`kernel warmed with ${KERNEL_WARMUP} granted PreToolUse and PostToolUse events`);
    return { url: forked.url, agentToken, close: () => forked.close() };
  })();
  const { url, agentToken } = await shared;
  // Each session's teardown leaves the shared kernel running; it closes when the bench ends.
  return { url, agentToken, close: async () => {} };
}

/** Closes the bench's kernel, if a session started it. */
async function closeSharedKernel(): Promise<void> {
  if (shared) await (await shared).close();
}

const CALLS = Number(process.env.CALLS ?? 30);
const ROUNDS = Number(process.env.ROUNDS ?? 3);

/** Per-call latencies (ms) read off the model server's clock. */
function callLatencies(server: ModelServer): number[] {
  const turns = server.turns();
  const samples: number[] = [];
  for (let i = 0; i + 1 < turns.length; i += 1) {
    const answered = turns[i]?.answeredAt;
    const next = turns[i + 1]?.at;
    if (answered !== undefined && next !== undefined) samples.push(next - answered);
  }
  return samples;
}

function percentile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return (
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN
  );
}

interface Row {
  agent: AgentName;
  variant: HookVariant;
  /** Every call's latency, over all rounds. */
  samples: number[];
  /** Each round's p50. */
  roundP50: number[];
  ran: number;
  p50: number;
  p99: number;
}

/** One session of CALLS shell calls: each call's latency, and how many distinct results the model got. */
async function measure(
  agent: AgentName,
  variant: HookVariant,
): Promise<{ samples: number[]; ran: number }> {
  const script = Array.from({ length: CALLS }, (_, i) => ({
    kind: 'shell' as const,
    command: `echo call-${i}`,
  }));
  const sandbox: AgentSandbox = await createAgentSandbox(agent, script);
  const teardown = await variant.setup(sandbox);
  try {
    const run = await runAgent(sandbox, { prompt: 'Run the checks.', timeoutMs: 15 * 60_000 });
    if (run.timedOut || run.code !== 0) {
      console.error(
        `${agent} ${variant.name}: exit ${run.code}${run.timedOut ? ' (timed out)' : ''}\n${run.stderr.slice(-2000)}`,
      );
    }
    const ran = sandbox.server.toolOutputs().filter((output) => output.includes('call-')).length;
    return { samples: callLatencies(sandbox.server).slice(0, CALLS), ran };
  } finally {
    await teardown?.();
    await sandbox.close();
  }
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : '-');
const ratio = (value: number, floor: number | undefined) =>
  floor === undefined || !Number.isFinite(value) ? '-' : (value / floor).toFixed(2);
const lines: string[] = [
  `bench:hooks  ${CALLS} shell calls per session, ${ROUNDS} rounds in rotating order; per-call latency in ms (model server's clock)`,
  `${'agent'.padEnd(12)} ${'hook'.padEnd(29)} ${'p50'.padStart(7)} ${'p99'.padStart(7)}  ${'+p50 vs none'.padStart(12)}  ${'+p50 vs floor'.padStart(13)}  ${'x floor'.padStart(7)}  ${'rounds'.padStart(11)}  ${'x pre+post'.padStart(10)}  ran`,
];
const onlyAgents = process.env.AGENTS?.split(',').filter(Boolean);
const onlyVariants = process.env.VARIANTS?.split(',').filter(Boolean);
for (const agent of installedAgents().filter((a) => !onlyAgents || onlyAgents.includes(a))) {
  const variants = [
    noHook,
    ...floorVariants(agent),
    ...airlockVariants(agent, kernelProcess),
  ].filter(
    (variant) =>
      !onlyVariants ||
      variant.kind === 'none' ||
      onlyVariants.some((word) => variant.name.includes(word)),
  );
  const rows: Row[] = variants.map((variant) => ({
    agent,
    variant,
    samples: [],
    roundP50: [],
    ran: 0,
    p50: Number.NaN,
    p99: Number.NaN,
  }));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (let i = 0; i < rows.length; i += 1) {
      const row = rows[(i + round) % rows.length] as Row;
      const { samples, ran } = await measure(agent, row.variant);
      const p50 = percentile(samples, 0.5);
      row.samples.push(...samples);
      row.roundP50.push(p50);
      row.ran += ran;
      console.error(
        `${agent} ${row.variant.name} (round ${round + 1}): p50 ${ms(p50)} ms, ${ran}/${CALLS} ran`,
      );
    }
  }
  for (const row of rows) {
    row.p50 = percentile(row.samples, 0.5);
    row.p99 = percentile(row.samples, 0.99);
  }
  const none = rows.find((row) => row.variant.kind === 'none');
  const prePost = rows.find((row) => row.variant.name === 'trivial allow (sh, pre+post)');
  for (const row of rows) {
    const floor = rows.find(
      (candidate) =>
        candidate.variant.floor && candidate.variant.transport === row.variant.transport,
    );
    const compared = floor !== undefined && !row.variant.floor && row.variant.kind !== 'none';
    const overNone = none ? row.p50 - none.p50 : Number.NaN;
    const overFloor = compared ? row.p50 - floor.p50 : Number.NaN;
    const perRound = compared
      ? row.roundP50.map((p50, round) => p50 / (floor.roundP50[round] as number))
      : [];
    const spread = perRound.length
      ? `${Math.min(...perRound).toFixed(2)}-${Math.max(...perRound).toFixed(2)}`
      : '-';
    const overPrePost =
      row.variant.kind === 'airlock' && row.variant.transport === 'command'
        ? ratio(row.p50, prePost?.p50)
        : '-';
    lines.push(
      `${agent.padEnd(12)} ${row.variant.name.padEnd(29)} ${ms(row.p50).padStart(7)} ${ms(row.p99).padStart(7)}  ${ms(overNone).padStart(12)}  ${ms(overFloor).padStart(13)}  ${(compared ? ratio(row.p50, floor.p50) : '-').padStart(7)}  ${spread.padStart(11)}  ${overPrePost.padStart(10)}  ${row.ran}/${CALLS * ROUNDS}`,
    );
  }
}
console.log(lines.join('\n'));
await closeSharedKernel();
