import { GatewayProviderSchema, OPERATION_CONTRACTS } from '@airlock/core';
import {
  CALL_ID_MAX,
  CALL_NAME_MAX,
  DENY_REASON_MAX,
  GATEWAY_CLIENT_MAX,
} from '@airlock/core/wire';
import { describe, expect, it } from 'vitest';

/** The paths of the problems the schema finds in `value` (none: it takes it). */
function problemPaths(
  schema: { safeParse(value: unknown): { error?: { issues: { path: PropertyKey[] }[] } } },
  value: unknown,
): string[] {
  return (schema.safeParse(value).error?.issues ?? []).map((issue) => issue.path.join('.'));
}

/*
 * The gateway fits names, ids, its client's name and deny reasons to the
 * limits core exports; the kernel's contracts must take exactly those.
 */
describe('the kernel limits the gateway fits its values to', () => {
  const run = { workspace_id: 'ws_1', run_id: 'run_1' };
  const call = (name: string, id?: string) =>
    problemPaths(OPERATION_CONTRACTS['runs.calls'].input, { ...run, calls: [{ name, id }] });

  it('a call name of CALL_NAME_MAX characters is taken, one more is refused', () => {
    expect(call('x'.repeat(CALL_NAME_MAX))).toEqual([]);
    expect(call('x'.repeat(CALL_NAME_MAX + 1))).toEqual(['calls.0.name']);
  });

  it('a call id of CALL_ID_MAX characters is taken, one more is refused', () => {
    expect(call('t', 'i'.repeat(CALL_ID_MAX))).toEqual([]);
    expect(call('t', 'i'.repeat(CALL_ID_MAX + 1))).toEqual(['calls.0.id']);
  });

  it("a gateway provider's client of GATEWAY_CLIENT_MAX characters is taken, one more is refused", () => {
    const provider = (client: string) =>
      problemPaths(GatewayProviderSchema, { kind: 'gateway', client });
    expect(provider('c'.repeat(GATEWAY_CLIENT_MAX))).toEqual([]);
    expect(provider('c'.repeat(GATEWAY_CLIENT_MAX + 1))).toEqual(['client']);
  });

  it('a deny reason of DENY_REASON_MAX characters is taken, one more is refused', () => {
    const deny = (reason: string) =>
      problemPaths(OPERATION_CONTRACTS['decisions.deny'].input, {
        ...run,
        task_key: 't1',
        reason,
      });
    expect(deny('r'.repeat(DENY_REASON_MAX))).toEqual([]);
    expect(deny('r'.repeat(DENY_REASON_MAX + 1))).toEqual(['reason']);
  });
});
