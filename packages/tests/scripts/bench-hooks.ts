/*
 * Prints what a pre-tool hook costs each real coding agent per tool call: the agent does 50 scripted
 * shell calls against its scripted model server with no hook, with a trivial always-allow hook (the
 * floor: a shell script, and for Claude Code also an HTTP hook on loopback), and with Airlock.
 * A call's latency is what the model server sees: from the end of the answer carrying the tool call
 * to the arrival of the request carrying its result (hook, tool and the agent's own work; never
 * the model's). Run: pnpm bench:hooks   (CALLS=50 by default)
 */
import { type AgentName, installedAgents } from '../src/agents/agent-binaries.js';
import { type AgentSandbox, createAgentSandbox, runAgent } from '../src/agents/agent-sandbox.js';
import { airlockVariant } from '../src/agents/airlock-variant.js';
import { floorVariants, type HookVariant, noHook } from '../src/agents/bench-variants.js';
import type { ModelServer } from '../src/agents/model-servers/scripted-server.js';

const CALLS = Number(process.env.CALLS ?? 50);

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
  p50: number;
  p99: number;
  ran: number;
}

async function measure(agent: AgentName, variant: HookVariant): Promise<Row> {
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
    const samples = callLatencies(sandbox.server).slice(0, CALLS);
    return { agent, variant, p50: percentile(samples, 0.5), p99: percentile(samples, 0.99), ran };
  } finally {
    await teardown?.();
    await sandbox.close();
  }
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : '-');
const lines: string[] = [
  `bench:hooks  ${CALLS} shell calls per run; per-call latency in ms (model server's clock)`,
  `${'agent'.padEnd(12)} ${'hook'.padEnd(26)} ${'p50'.padStart(7)} ${'p99'.padStart(7)}  ${'+p50 vs none'.padStart(12)}  ${'+p50 vs floor'.padStart(13)}  ${'x floor'.padStart(7)}  ran`,
];
for (const agent of installedAgents()) {
  const variants = [noHook, ...floorVariants(agent), airlockVariant];
  const rows: Row[] = [];
  for (const variant of variants) {
    const row = await measure(agent, variant);
    rows.push(row);
    console.error(
      `${agent} ${variant.name}: p50 ${ms(row.p50)} ms, p99 ${ms(row.p99)} ms, ${row.ran}/${CALLS} ran`,
    );
  }
  const none = rows.find((row) => row.variant.kind === 'none');
  for (const row of rows) {
    const floor = rows.find(
      (candidate) =>
        candidate.variant.floor && candidate.variant.transport === row.variant.transport,
    );
    const overNone = none ? row.p50 - none.p50 : Number.NaN;
    const overFloor =
      floor && !row.variant.floor && row.variant.kind !== 'none' ? row.p50 - floor.p50 : Number.NaN;
    const ratio =
      floor && !row.variant.floor && row.variant.kind !== 'none'
        ? (row.p50 / floor.p50).toFixed(2)
        : '-';
    lines.push(
      `${agent.padEnd(12)} ${row.variant.name.padEnd(26)} ${ms(row.p50).padStart(7)} ${ms(row.p99).padStart(7)}  ${ms(overNone).padStart(12)}  ${ms(overFloor).padStart(13)}  ${ratio.padStart(7)}  ${row.ran}/${CALLS}`,
    );
  }
}
console.log(lines.join('\n'));
