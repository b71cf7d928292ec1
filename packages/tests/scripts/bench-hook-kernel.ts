/*
 * Times the kernel's part of Claude Code's HTTP hook: the same `PreToolUse`
 * and `PostToolUse` payloads Claude Code posts, sent to
 * `/agent_api/v1/hooks/claude-code/default` by a client in this process,
 * against a kernel on SQLite whose rule grants `Bash`. Prints p50/p99 of each
 * (after a warm-up). With KERNEL=process the kernel runs in a process of its
 * own and the bench also prints the kernel's CPU time per event (user +
 * system, steadier than a latency on a shared machine); PROFILE=FILE then
 * writes a V8 CPU profile of that kernel (PROFILE_INTERVAL_US sets its
 * sampling interval, 1000 by default).
 * Run: pnpm --filter @airlock/tests bench:hook-kernel   (CALLS=200 by default;
 * DURABILITY=relaxed for a kernel that syncs its WAL at checkpoints only;
 * WARMUP=N event pairs before measuring, 20 by default)
 */
import { declareProfile, startFrameworkKernel } from '../src/frameworks/support.js';
import { claudeToolEvents, postClaudeEvent } from './claude-hook-events.js';
import { forkKernel, type KernelProcess } from './kernel-process.js';

const CALLS = Number(process.env.CALLS ?? 200);
/** Pairs sent before measuring; a few thousand reach a kernel V8 has optimized (docs/performance.md). */
const WARMUP = Number(process.env.WARMUP ?? 20);
const DURABILITY = process.env.DURABILITY === 'relaxed' ? 'relaxed' : 'full';
const OWN_PROCESS = process.env.KERNEL === 'process';
const PROFILE = process.env.PROFILE;
const GRANT_BASH = { approval_mode: 'rules', approval_rules: [{ tool: 'Bash', verdict: 'allow' }] };

async function kernelUnderBench(): Promise<{
  connection: { url: string; token: string };
  forked: KernelProcess | null;
  close: () => Promise<void>;
}> {
  if (!OWN_PROCESS) {
    const k = await startFrameworkKernel(GRANT_BASH, { durability: DURABILITY });
    return { connection: k.connection, forked: null, close: () => k.close() };
  }
  const forked = await forkKernel({ durability: DURABILITY, inbox: false });
  const connection = { url: forked.url, token: forked.workspace.tokens.agent };
  await declareProfile(connection, GRANT_BASH);
  return { connection, forked, close: () => forked.close() };
}

const k = await kernelUnderBench();
const timedPost = async (body: object): Promise<number> => {
  const started = performance.now();
  await postClaudeEvent(k.connection.url, k.connection.token, body);
  return performance.now() - started;
};
const percentile = (samples: number[], q: number) =>
  [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor(q * samples.length))];

try {
  console.log(
    `node ${process.version}, durability ${DURABILITY}, kernel ${OWN_PROCESS ? 'in a process of its own' : 'in this process'}`,
  );
  const pre: number[] = [];
  const post: number[] = [];
  let cpuAtStart = 0;
  for (let i = 0; i < WARMUP + CALLS; i += 1) {
    if (i === WARMUP && k.forked) {
      if (PROFILE) await k.forked.startProfile(Number(process.env.PROFILE_INTERVAL_US ?? 1000));
      cpuAtStart = await k.forked.cpuMs();
    }
    const [preEvent, postEvent] = claudeToolEvents('bench', i);
    const a = await timedPost(preEvent);
    const b = await timedPost(postEvent);
    if (i >= WARMUP) {
      pre.push(a);
      post.push(b);
    }
  }
  const cpuPerEvent = k.forked ? ((await k.forked.cpuMs()) - cpuAtStart) / (2 * CALLS) : null;
  if (k.forked && PROFILE) await k.forked.stopProfile(PROFILE);
  for (const [name, samples] of [
    ['PreToolUse ', pre],
    ['PostToolUse', post],
  ] as const) {
    console.log(
      `${name}  p50 ${percentile(samples, 0.5)?.toFixed(2)} ms  p99 ${percentile(samples, 0.99)?.toFixed(2)} ms  (${CALLS} calls)`,
    );
  }
  if (cpuPerEvent !== null) {
    console.log(`kernel CPU per event (both kinds together): ${cpuPerEvent.toFixed(2)} ms`);
  }
} finally {
  await k.close();
}
