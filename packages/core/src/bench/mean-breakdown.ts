import { decide, type Policy, type ToolCall } from '../index.js';
import { format, throughput } from './measure.js';
import { shellCallKind } from './shell-workload.js';

/**
 * Times each kind of call of the shell-heavy workload on its own and prints
 * what it adds to the mean. Each kind alone keeps its own tables and branch
 * history warm, so the weighted sum comes out below the mixed mean.
 */
export function printWhereTheMeanGoes(policy: Policy, calls: readonly ToolCall[]): void {
  const byKind = new Map<string, ToolCall[]>();
  for (const call of calls) {
    const kind = shellCallKind(call);
    let list = byKind.get(kind);
    if (!list) {
      list = [];
      byKind.set(kind, list);
    }
    list.push(call);
  }
  let weighted = 0;
  const rows = [...byKind].map(([kind, list]) => {
    const ns = 1e9 / throughput(list, (call) => decide(policy, call), 0.3);
    const share = list.length / calls.length;
    weighted += ns * share;
    return { kind, share, ns };
  });
  rows.sort((a, b) => b.ns * b.share - a.ns * a.share);
  for (const { kind, share, ns } of rows) {
    console.log(
      `  ${kind.padEnd(40)} ${`${(share * 100).toFixed(1)}% of calls`.padStart(16)} ${`${format(ns)} ns each`.padStart(14)} ${`${(ns * share).toFixed(1)} ns of the mean`.padStart(22)}`,
    );
  }
  console.log(
    `  ${'weighted sum, each kind timed alone'.padEnd(40)} ${' '.repeat(31)} ${`${weighted.toFixed(1)} ns`.padStart(22)}`,
  );
}
