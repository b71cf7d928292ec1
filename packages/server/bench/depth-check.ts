/**
 * What the nesting-depth check of a request body (made before `JSON.parse`,
 * api/input-guard.ts) costs beside `JSON.parse` of the same text, on a hook
 * report of about 4.4 KB whose output holds quotes and backslashes.
 *
 *   pnpm --filter @airlock/server bench:depth-check
 */
import { checkJsonTextDepth } from '../src/api/input-guard.js';

const output = `${'x'.repeat(100)}\n${Array.from(
  { length: 80 },
  (_, i) => `line ${i}: some "quoted" text \\ with a backslash`,
).join('\n')}`;
const text = JSON.stringify({
  agent: 'claude-code',
  session_id: 's-1',
  event: 'post_tool',
  tool_name: 'Bash',
  tool_input: { command: 'ls -la /some/path', description: 'list' },
  tool_use_id: 'toolu_01',
  outcome: 'succeeded',
  output,
  cwd: '/home/user/project',
  transcript_path: '/home/user/.claude/projects/x/y.jsonl',
});
const RUNS = 20_000;
const median = (list: number[]) => [...list].sort((a, b) => a - b)[list.length >> 1]!;
const times = { depth: [] as number[], parse: [] as number[] };
// Rounds taking turns; the first of each warms up and is not kept.
for (let round = 0; round < 6; round += 1) {
  let started = performance.now();
  for (let i = 0; i < RUNS; i += 1) checkJsonTextDepth(text);
  const depth = ((performance.now() - started) / RUNS) * 1000;
  started = performance.now();
  for (let i = 0; i < RUNS; i += 1) JSON.parse(text);
  const parse = ((performance.now() - started) / RUNS) * 1000;
  if (round > 0) {
    times.depth.push(depth);
    times.parse.push(parse);
  }
}
console.log(`a ${text.length}-character hook report, ${RUNS} runs per round, median of 5 rounds`);
console.log(`depth check   ${median(times.depth).toFixed(2)} µs`);
console.log(`JSON.parse    ${median(times.parse).toFixed(2)} µs`);
