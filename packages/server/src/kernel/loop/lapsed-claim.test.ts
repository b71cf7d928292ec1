import { ToolManifestEntrySchema } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { mayRunAgainAfterLapse } from './lapsed-claim.js';

/** A run whose frozen policy layers hold this manifest (a fresh id: the frozen cache is by run). */
let runs = 0;
function runWith(manifest: unknown[]) {
  runs += 1;
  return { id: `run_lapse_${runs}`, policy_layers: JSON.stringify({ tool_manifest: manifest }) };
}

const call = { tool_name: 'charge', resolved_tool_name: null };
const entry = { name: 'charge', input_schema: { type: 'object' } };

describe('mayRunAgainAfterLapse', () => {
  it('runs a write the manifest declares idempotent again, and not one it does not', () => {
    const idempotent = { ...entry, risk_traits: ['write', 'network'], idempotent: true };
    expect(mayRunAgainAfterLapse(runWith([idempotent]), call)).toBe(true);
    expect(mayRunAgainAfterLapse(runWith([{ ...idempotent, idempotent: false }]), call)).toBe(
      false,
    );
    expect(mayRunAgainAfterLapse(runWith([{ ...entry, risk_traits: ['write'] }]), call)).toBe(
      false,
    );
    expect(mayRunAgainAfterLapse(runWith([{ ...entry, risk_traits: ['read'] }]), call)).toBe(true);
  });

  it('is a boolean in the manifest: anything else is refused', () => {
    const parsed = { ...entry, risk_traits: ['write'] };
    expect(ToolManifestEntrySchema.safeParse({ ...parsed, idempotent: true }).success).toBe(true);
    const refused = ToolManifestEntrySchema.safeParse({ ...parsed, idempotent: 'yes' });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.path).toEqual(['idempotent']);
  });
});
