import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const sqlite = (await backends()).filter((backend) => backend.name === 'sqlite');

/** Definitions each naming the next twice, the first use failing only after applying it. */
function doublingChain(length: number): Record<string, unknown> {
  const $defs: Record<string, unknown> = {};
  for (let i = 0; i < length; i++) {
    const next = i + 1 < length ? { $ref: `#/$defs/d${i + 1}` } : { type: 'string' };
    $defs[`d${i}`] = { anyOf: [{ allOf: [next, false] }, next] };
  }
  return { type: 'object', properties: { q: { $ref: '#/$defs/d0' } }, $defs };
}

/*
 * A small schema whose $refs apply one subschema 2^22 times held the kernel's only thread for
 * as long as that takes (2^40 times: for good) on a call's input, since only its JSON values
 * were counted. The call is refused as data now, saying why, and the run goes on.
 */
describe.each(sqlite)('a call of a tool whose schema multiplies its $refs ($name)', (backend) => {
  let d: Deployment;
  afterEach(async () => {
    await d?.close();
  });

  it('is refused approval_denied, saying the check would cost too much', async () => {
    d = await deploy(backend);
    const created = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'bypass',
      input: 'x',
      tool_manifest: [{ name: 'lookup', input_schema: doublingChain(22), risk_traits: ['read'] }],
      provider: {
        kind: 'scripted',
        rounds: [{ tool_calls: [{ name: 'lookup', input: { q: 'a' } }] }, { final: 'done' }],
      },
    });
    expect(created.status).toBe(201);
    const runId = created.body.id as string;
    const task = await waitFor(async () => {
      const tasks = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks;
      return tasks[0]?.state === 'runnable' || tasks[0]?.state === 'failed' ? tasks[0] : null;
    });
    expect(task.state).toBe('failed');
    expect(task.error.code).toBe('approval_denied');
    expect(task.error.detail).toMatch(/too costly to check against the schema of lookup/);
  });
});
