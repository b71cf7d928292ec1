/*
 * What a write costs through the kernel's REST route against its tRPC procedure: the framework
 * adapters' check (`hooks.event`, `pre_tool`, granted by a rule), posted with `fetch` to
 * `POST /agent_api/v1/hooks/events` and to `POST /trpc/hooks.event` alternately, one after another,
 * against a kernel on SQLite in this process (each check's report follows it, untimed, over REST).
 * Prints the p50 and p90 of each and their ratio. The SDK sends its writes over REST because of
 * this difference (the kernel's tRPC adapter builds a Fetch Request for every call).
 * Run: pnpm --filter @airlock/tests bench:write-routes   (CALLS=300 per route by default)
 */
import { startFrameworkKernel } from '../src/frameworks/support.js';

const CALLS = Number(process.env.CALLS ?? 300);
const WARMUP = 30;

const k = await startFrameworkKernel();
const headers = {
  authorization: `Bearer ${k.connection.token}`,
  'content-type': 'application/json',
};
const post = async (path: string, body: unknown): Promise<void> => {
  const response = await fetch(`${k.connection.url}${path}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${text}`);
};
const call = (i: number) => ({
  agent: 'ai-sdk',
  session_id: 'bench-write-routes',
  tool_name: 'lookup',
  tool_input: { q: i },
  tool_use_id: `c${i}`,
});
const percentile = (samples: number[], q: number) =>
  [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;

const times = { rest: [] as number[], trpc: [] as number[] };
try {
  for (let i = 0; i < 2 * (WARMUP + CALLS); i += 1) {
    const route = i % 2 === 0 ? 'rest' : 'trpc';
    const started = performance.now();
    await post(route === 'rest' ? '/agent_api/v1/hooks/events' : '/trpc/hooks.event', {
      ...call(i),
      event: 'pre_tool',
    });
    if (i >= 2 * WARMUP) times[route].push(performance.now() - started);
    await post('/agent_api/v1/hooks/events', {
      ...call(i),
      event: 'post_tool',
      outcome: 'succeeded',
      output: 'ok',
    });
  }
  const line = (name: string, samples: number[]) =>
    `${name.padEnd(6)} p50 ${percentile(samples, 0.5).toFixed(2)} ms, p90 ${percentile(samples, 0.9).toFixed(2)} ms`;
  console.log(
    `a granted hooks.event check, ${CALLS} per route, interleaved, kernel in this process`,
  );
  console.log(line('REST', times.rest));
  console.log(line('tRPC', times.trpc));
  console.log(
    `REST / tRPC p50: ${(percentile(times.rest, 0.5) / percentile(times.trpc, 0.5)).toFixed(2)}`,
  );
} finally {
  await k.close();
}
