/**
 * What the check of a request's JSON text (made before `JSON.parse`,
 * api/json-text.ts: nesting depth, keys named twice, numbers read otherwise
 * than written) costs beside `JSON.parse` of the same text: on a hook report
 * of about 4.4 KB whose output holds quotes and backslashes, and on 1 MiB
 * bodies of many keys and numbers.
 *
 *   pnpm --filter @airlock/server bench:depth-check
 */
import { checkJsonText } from '../src/api/json-text.js';

const output = `${'x'.repeat(100)}\n${Array.from(
  { length: 80 },
  (_, i) => `line ${i}: some "quoted" text \\ with a backslash`,
).join('\n')}`;
const hookReport = JSON.stringify({
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

/** A body of about 1 MiB: `tool_input` holds `build(i)` for as many i as fit. */
function mebibyteBody(build: (i: number) => [string, unknown]): string {
  const entries: [string, unknown][] = [];
  let size = 0;
  for (let i = 0; size < 1024 * 1024 - 200; i++) {
    const entry = build(i);
    size += JSON.stringify(entry[0]).length + JSON.stringify(entry[1]).length + 2;
    entries.push(entry);
  }
  return JSON.stringify({ tool_name: 'bulk', tool_input: Object.fromEntries(entries) });
}

/** An array of about 1 MiB of JSON text: `build(i)` for as many i as fit. */
function mebibyteArray(build: (i: number) => unknown): unknown[] {
  const items: unknown[] = [];
  for (let i = 0, size = 0; size < 1024 * 1024 - 200; i++) {
    items.push(build(i));
    size += JSON.stringify(items[i]).length + 1;
  }
  return items;
}

const cases = [
  { name: 'a 4.4 KB hook report', text: hookReport, runs: 20_000 },
  {
    name: '1 MiB, one object of short keys and 16-digit numbers',
    text: mebibyteBody((i) => [`k${i}`, 1_000_000_000_000_000 + i]),
    runs: 40,
  },
  {
    name: '1 MiB, an array of 17-digit integers (each converted and written back)',
    text: JSON.stringify({
      tool_input: { ids: mebibyteArray((i) => 10_000_000_000_000_000 + i * 2) },
    }),
    runs: 40,
  },
  {
    name: '1 MiB, many small objects (keys repeat across objects)',
    text: mebibyteBody((i) => [`row${i}`, { id: i, name: `n${i}`, ok: true, tags: ['a', 'b'] }]),
    runs: 40,
  },
];
const median = (list: number[]) => [...list].sort((a, b) => a - b)[list.length >> 1]!;
for (const { name, text, runs } of cases) {
  const times = { check: [] as number[], parse: [] as number[] };
  // Rounds taking turns; the first of each warms up and is not kept.
  for (let round = 0; round < 6; round += 1) {
    let started = performance.now();
    for (let i = 0; i < runs; i += 1) checkJsonText(text);
    const check = (performance.now() - started) / runs;
    started = performance.now();
    for (let i = 0; i < runs; i += 1) JSON.parse(text);
    const parse = (performance.now() - started) / runs;
    if (round > 0) {
      times.check.push(check);
      times.parse.push(parse);
    }
  }
  const unit = text.length > 100_000 ? 'ms' : 'µs';
  const scale = unit === 'ms' ? 1 : 1000;
  console.log(`${name} (${text.length} characters), median of 5 rounds of ${runs}`);
  console.log(`  text check   ${(median(times.check) * scale).toFixed(2)} ${unit}`);
  console.log(`  JSON.parse   ${(median(times.parse) * scale).toFixed(2)} ${unit}`);
}
