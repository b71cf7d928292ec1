/**
 * Benchmark of the permission engine reading shell commands for the paths they may reach
 * (the words, globs, variables, here-documents and `cd`s of a Bash call under target rules).
 * The workload users have: one shell tool, the bench's realistic command mix (short commands,
 * `a && b` chains, long here-documents; shell-workload.ts), under no target rule (the floor:
 * nothing to read the words against), the rules people write (`**` + `/.env`, `**` + `/*.pem`,
 * `secrets/**`), and 40 target rules; then adversarial commands at the 8 KB limit. Prints p50
 * and p99 per call and each row's ratio to the floor, measured in the same run. Asserts nothing.
 * Run: pnpm run build && node packages/core/dist/bench/shell-permissions-bench.js
 */
import {
  evaluatePermissions,
  type PermissionRequest,
  type PermissionRule,
  type ToolManifest,
} from '../index.js';
import { latencies, timerOverhead } from './measure.js';
import { makeShellCalls, shellCallKind } from './shell-workload.js';

const MANIFEST: ToolManifest = [
  {
    name: 'bash',
    input_schema: { type: 'object' },
    risk_traits: ['execute'],
    commands: ['/command', '/argv'],
  },
];

const COMMON: PermissionRule[] = [
  { verdict: 'deny', targets: ['**/.env'] },
  { verdict: 'deny', targets: ['**/*.pem'] },
  { verdict: 'ask', targets: ['secrets/**'] },
];
const FORTY: PermissionRule[] = Array.from({ length: 40 }, (_, i) => ({
  verdict: i % 4 === 0 ? 'ask' : 'deny',
  targets: [i % 2 === 0 ? `pkg-${i}/secrets/**` : `**/*.secret-${i}`],
}));

function requests(commands: readonly unknown[], rules: PermissionRule[]): PermissionRequest[] {
  return commands.map((input) => ({
    toolName: 'bash',
    input,
    manifest: MANIFEST,
    projectRoot: '/repo',
    ruleSetId: 'autonomous',
    customRuleSets: undefined,
    approvalMode: 'bypass',
    overlays: { conversation: [{ ruleSetId: 'autonomous', rules }] },
  }));
}

/** Commands at the 8,192-character limit that make the reader work: many words, globs, cds. */
function adversarial(): { label: string; command: string }[] {
  const fill = (unit: string) => unit.repeat(Math.floor(8000 / unit.length));
  return [
    { label: '8 KB of path words', command: `cat ${fill('src/a/b/c/d.ts ')}` },
    { label: '8 KB of glob words', command: `ls ${fill('s*/?[ab]*/**/*.t? ')}` },
    { label: '8 KB of cd chains', command: fill('cd src/lib && cat x.ts; ') },
    { label: '8 KB of variables', command: fill('F=src/$G/x; cat $F; ') },
  ];
}

const overhead = timerOverhead();
const realistic = makeShellCalls(3000)
  .filter((call) => call.toolName.startsWith('bash'))
  .map((call) => ({ kind: shellCallKind(call), input: call.toolInput }));
const kinds = [...new Set(realistic.map((call) => call.kind))].sort();
const policies: [string, PermissionRule[]][] = [
  ['no target rule (floor)', [{ verdict: 'allow', risks: ['execute'] }]],
  ['3 rules people write', COMMON],
  ['40 target rules', FORTY],
];

console.log('evaluatePermissions of one Bash call, by the paths its command may reach');
for (const kind of kinds) {
  const inputs = realistic.filter((call) => call.kind === kind).map((call) => call.input);
  let floor = 0;
  for (const [label, rules] of policies) {
    const { p50, p99 } = latencies(requests(inputs, rules), evaluatePermissions, overhead);
    if (floor === 0) floor = p50;
    console.log(
      `${`${kind} (${inputs.length}), ${label}`.padEnd(58)} p50 ${(p50 / 1000).toFixed(1).padStart(7)} µs   p99 ${(p99 / 1000).toFixed(1).padStart(8)} µs   ${(p50 / floor).toFixed(1)}x`,
    );
  }
}
console.log('\nadversarial commands (8 KB), 3 rules people write, against the floor');
for (const { label, command } of adversarial()) {
  const input = [{ command }];
  const floor = latencies(requests(input, policies[0]![1]), evaluatePermissions, overhead).p50;
  const { p50, p99 } = latencies(requests(input, COMMON), evaluatePermissions, overhead);
  const verdict = evaluatePermissions(requests(input, COMMON)[0]!).verdict;
  console.log(
    `${label.padEnd(30)} p50 ${(p50 / 1000).toFixed(1).padStart(8)} µs   p99 ${(p99 / 1000).toFixed(1).padStart(8)} µs   ${(p50 / floor).toFixed(1)}x the floor   (${verdict})`,
  );
}
