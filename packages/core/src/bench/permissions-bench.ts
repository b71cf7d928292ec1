/**
 * Benchmark of the permission engine (spec 003). Prints calls per second and
 * per-call latency of evaluatePermissions under each built-in set, with
 * conversation overlays of growing size, for multi-target calls, and the
 * rooted-pattern matcher on long paths. Asserts nothing.
 * Run: pnpm run build && node packages/core/dist/bench/permissions-bench.js
 */
import {
  compileRootedPattern,
  evaluatePermissions,
  type OverlayDocument,
  type PermissionRequest,
  type PermissionRule,
  RISK_TRAITS,
  type ToolManifest,
} from '../index.js';
import { format, latencies, throughput, timerOverhead } from './measure.js';

const MANIFEST: ToolManifest = [
  ...RISK_TRAITS.map((trait) => ({
    name: `t_${trait}`,
    input_schema: { type: 'object' },
    risk_traits: [trait],
    targets: [{ pointer: '/path', kind: 'path' as const }],
  })),
  {
    name: 'multi_edit',
    input_schema: { type: 'object' },
    risk_traits: ['write'],
    targets: [{ pointer: '/edits/*/path', kind: 'path' }],
  },
];

function calls(ruleSetId: string, overlays: PermissionRequest['overlays']): PermissionRequest[] {
  return Array.from({ length: 2000 }, (_, i) => ({
    toolName: `t_${RISK_TRAITS[i % RISK_TRAITS.length]}`,
    input: { path: `./src/module-${i % 50}/../module-${i % 50}/file-${i}.ts` },
    manifest: MANIFEST,
    projectRoot: '/repo',
    ruleSetId,
    customRuleSets: undefined,
    approvalMode: 'bypass',
    overlays,
  }));
}

function overlayOf(rules: number): OverlayDocument {
  const list: PermissionRule[] = Array.from({ length: rules }, (_, i) => ({
    verdict: i % 3 === 0 ? 'deny' : 'allow',
    risks: ['write'],
    targets: [`pkg-${i}/**/*.ts`],
  }));
  return [{ ruleSetId: 'supervised', rules: list }];
}

const overhead = timerOverhead();
const row = (label: string, list: PermissionRequest[]) => {
  const perSecond = throughput(list, evaluatePermissions);
  const { p50, p99 } = latencies(list, evaluatePermissions, overhead);
  console.log(
    `${label.padEnd(44)} ${format(perSecond).padStart(12)} calls/s   p50 ${Math.round(p50)} ns   p99 ${Math.round(p99)} ns`,
  );
};

console.log('evaluatePermissions (one call = canonical targets + Baseline + set + overlays)');
for (const id of ['read_only', 'supervised', 'autonomous', 'planning']) {
  row(`built-in ${id}, no overlays`, calls(id, {}));
}
for (const size of [10, 100, 1000]) {
  row(
    `supervised + conversation overlay of ${size} rules`,
    calls('supervised', { conversation: overlayOf(size) }),
  );
}
// A run's custom set as the stage hands it over: the same object on every call of the run,
// compared by its JSON text, or deeply frozen and trusted as is.
const customSet = {
  id: 'team',
  rules: Array.from(
    { length: 121 },
    (_, i): PermissionRule => ({
      verdict: i % 3 === 0 ? 'deny' : 'allow',
      risks: ['write'],
      targets: [`pkg-${i}/**/*.ts`],
    }),
  ),
};
row(
  'custom set of 121 rules, no overlays',
  calls('team', {}).map((call) => ({ ...call, customRuleSets: [customSet] })),
);
const frozenSet = Object.freeze({
  id: 'team',
  rules: Object.freeze(
    customSet.rules.map((rule) =>
      Object.freeze({
        ...rule,
        risks: Object.freeze(rule.risks),
        targets: Object.freeze(rule.targets),
      }),
    ),
  ),
});
row(
  'deeply frozen custom set of 121 rules',
  calls('team', {}).map((call) => ({ ...call, customRuleSets: [frozenSet] })),
);
const multi = (targets: number): PermissionRequest[] =>
  calls('supervised', {
    conversation: [{ ruleSetId: 'supervised', rules: [{ verdict: 'allow', targets: ['src/**'] }] }],
  }).map((call, i) => ({
    ...call,
    toolName: 'multi_edit',
    input: { edits: Array.from({ length: targets }, (_, j) => ({ path: `src/d${i}/f${j}.ts` })) },
  }));
row('multi_edit, 10 targets, covering allow', multi(10));
row('multi_edit, 100 targets, covering allow', multi(100));

console.log('\nrooted patterns on long paths');
for (const length of [1_000, 10_000]) {
  const path = `${'a/'.repeat(length / 2)}x.ts`;
  for (const source of ['**/*.ts', '**/a/**/a/**/b.ts', `${'*/'.repeat(20)}**`]) {
    const pattern = compileRootedPattern(source);
    const perSecond = throughput([path], (p) => pattern.matches(p), 0.3);
    console.log(
      `${`${source.slice(0, 30)} on ${length} chars`.padEnd(44)} ${format(perSecond).padStart(12)} matches/s`,
    );
  }
}
