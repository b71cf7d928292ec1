/*
 * Times the kernel's part of Claude Code's HTTP hook: the same `PreToolUse`
 * and `PostToolUse` payloads Claude Code posts, sent to
 * `/agent_api/v1/hooks/claude-code/default` by a client in this process,
 * against a kernel on SQLite here whose rule grants `Bash`. Prints p50/p99
 * of each (after a warm-up).
 * Run: pnpm --filter @airlock/tests bench:hook-kernel   (CALLS=200 by default)
 */
import { startFrameworkKernel } from '../src/frameworks/support.js';

const CALLS = Number(process.env.CALLS ?? 200);
const WARMUP = 20;

const k = await startFrameworkKernel({
  approval_mode: 'rules',
  approval_rules: [{ tool: 'Bash', verdict: 'allow' }],
});
const url = `${k.connection.url}/agent_api/v1/hooks/claude-code/default`;
const timedPost = async (body: unknown): Promise<number> => {
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${k.connection.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`the hook answered ${response.status}: ${text}`);
  return performance.now() - started;
};
const percentile = (samples: number[], q: number) =>
  [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor(q * samples.length))];

try {
  const base = {
    session_id: 'bench',
    transcript_path: '/tmp/t',
    cwd: '/tmp',
    permission_mode: 'default',
  };
  const pre: number[] = [];
  const post: number[] = [];
  for (let i = 0; i < WARMUP + CALLS; i += 1) {
    const call = { tool_name: 'Bash', tool_input: { command: `ls ${i}` }, tool_use_id: `tu${i}` };
    const a = await timedPost({ ...base, hook_event_name: 'PreToolUse', ...call });
    const b = await timedPost({
      ...base,
      hook_event_name: 'PostToolUse',
      ...call,
      tool_response: { stdout: 'ok', stderr: '', interrupted: false },
    });
    if (i >= WARMUP) {
      pre.push(a);
      post.push(b);
    }
  }
  for (const [name, samples] of [
    ['PreToolUse ', pre],
    ['PostToolUse', post],
  ] as const) {
    console.log(
      `${name}  p50 ${percentile(samples, 0.5)?.toFixed(2)} ms  p99 ${percentile(samples, 0.99)?.toFixed(2)} ms  (${CALLS} calls)`,
    );
  }
} finally {
  await k.close();
}
