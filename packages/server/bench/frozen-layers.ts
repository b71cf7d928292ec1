/**
 * What a run's custom rule set costs at the permissions layer per call, two ways: the run's
 * frozen layers as the stage hands them to core now (parsed and deeply frozen once per run,
 * `frozenOf`, so core reuses the set's validation), and the same configuration parsed once
 * but left mutable (the stage up to 2026-12-06), which core must read as JSON text at every
 * call to know the set did not change. A set of 121 shell rules, one `bash` call each.
 *
 *   node --conditions=source --import tsx bench/frozen-layers.ts
 */
import { evaluatePermissions } from '@airlock/core';
import { frozenPermissions } from '../src/kernel/stage/permissions-layer.js';
import { frozenOf } from '../src/kernel/stage/policy-layers.js';

const rules = Array.from({ length: 120 }, (_, i) => ({
  verdict: i % 2 === 0 ? 'ask' : 'deny',
  tools: ['bash'],
  argument_patterns: { '/command': `*git x-${i} --flag-${i}*` },
  reason: `rule ${i} keeps git in its lane`,
}));
const layers = JSON.stringify({
  permission_rule_set: 'shell',
  custom_rule_sets: [{ id: 'shell', rules: [...rules, { verdict: 'allow', tools: ['bash'] }] }],
  tool_manifest: [
    {
      name: 'bash',
      input_schema: { type: 'object' },
      risk_traits: ['execute'],
      commands: ['/command'],
    },
  ],
});
const frozen = frozenOf({ id: 'bench-run', policy_layers: layers })!;
const mutable = JSON.parse(layers) as Record<string, unknown>;

function evaluate(configuration: Readonly<Record<string, unknown>>): string {
  const config = frozenPermissions(configuration);
  return evaluatePermissions({
    toolName: 'bash',
    input: { command: 'make test' },
    manifest: config.manifest,
    projectRoot: undefined,
    ruleSetId: config.ruleSetId!,
    customRuleSets: config.customRuleSets,
    approvalMode: 'bypass',
    overlays: {},
  }).verdict;
}

/** µs per call: 2,000 warm-ups, then 10 turns of 2,000 calls each way, taking turns. */
const ways = [
  ['deeply frozen once (now)', frozen],
  ['parsed once, mutable (before)', mutable],
] as const;
const spent = [0, 0];
for (const [, configuration] of ways) for (let i = 0; i < 2000; i += 1) evaluate(configuration);
for (let turn = 0; turn < 10; turn += 1) {
  for (const [index, [, configuration]] of ways.entries()) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < 2000; i += 1) evaluate(configuration);
    spent[index]! += Number(process.hrtime.bigint() - started) / 1000;
  }
}
console.log('| frozen layers | µs per call |\n| --- | ---: |');
for (const [index, [name]] of ways.entries()) {
  console.log(`| ${name} | ${(spent[index]! / 20_000).toFixed(1)} |`);
}
