import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();
const PROFILE = '/agent_api/v1/profile/configuration';
const LONE = '\uD800';
/** `(` after a lead byte that needs a continuation: no UTF-8. */
const INVALID_BYTES = Buffer.from([0xc3, 0x28]);

/** A JSON body whose `marker` string is replaced by raw bytes that are no UTF-8. */
function withRawBytes(body: unknown, marker: string): Buffer {
  const [before, after] = JSON.stringify(body).split(marker) as [string, string];
  return Buffer.concat([Buffer.from(before), INVALID_BYTES, Buffer.from(after)]);
}

async function send(d: Deployment, token: string, method: string, path: string, body: Buffer) {
  const response = await fetch(`${d.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: new Uint8Array(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the test reads JSON answers loosely.
  return { status: response.status, body: (await response.json()) as any };
}

const overlayGroups = (reason: string) => [
  { ruleSetId: 'supervised', rules: [{ verdict: 'deny', tools: ['bash'], reason }] },
];
const contract = (constraint: string) => ({
  approval_mode: 'bypass',
  action_contract: { contract_version: 1, constraints: [constraint], authorization: {} },
});

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`policy texts are Unicode text (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    it('an overlay reason with a lone surrogate or raw non-UTF-8 bytes is refused with 422 and a pointer; nothing is stored', async () => {
      d = await kernels.deploy(backend);
      const path = `${d.ws}/overlays/user/me`;
      const before = (await d.member.get(path)).body;
      const lone = await d.member.put(path, {
        expected_digest: before.digest,
        groups: overlayGroups(`never ${LONE} bash`),
      });
      expect(lone.status).toBe(422);
      expect(lone.body.error.code).toBe('invalid_configuration');
      expect(lone.body.error.problems).toEqual([
        expect.objectContaining({ code: 'not_unicode', pointer: '/groups/0/rules/0/reason' }),
      ]);
      const raw = await send(
        d,
        d.tokens.member,
        'PUT',
        path,
        withRawBytes({ expected_digest: before.digest, groups: overlayGroups('MARK') }, 'MARK'),
      );
      expect(raw.status).toBe(422);
      expect(raw.body.error.code).toBe('invalid_configuration');
      expect((await d.member.get(path)).body).toEqual(before);
    });

    it('a contract constraint with a lone surrogate or raw bytes is refused on profile.put, runs.create and tRPC alike', async () => {
      d = await kernels.deploy(backend);
      const lone = await d.agent.put(PROFILE, contract(`keep ${LONE} backups`));
      expect(lone.status).toBe(422);
      expect(lone.body.error.problems[0]).toMatchObject({
        code: 'not_unicode',
        pointer: '/action_contract/constraints/0',
      });
      const raw = await send(
        d,
        d.tokens.agent,
        'PUT',
        PROFILE,
        withRawBytes(contract('MARK'), 'MARK'),
      );
      expect(raw.status).toBe(422);
      expect((await d.agent.get(PROFILE)).body).toBeNull();
      const viaTrpc = await fetch(`${d.url}/trpc/profile.put`, {
        method: 'POST',
        headers: { authorization: `Bearer ${d.tokens.agent}`, 'content-type': 'application/json' },
        body: JSON.stringify(contract(`keep ${LONE} backups`)),
      });
      expect(viaTrpc.status).toBe(422);
      expect((await d.agent.get(PROFILE)).body).toBeNull();
      // Raw bytes on tRPC: read before tRPC decodes them leniently into U+FFFD.
      const rawTrpc = await send(
        d,
        d.tokens.agent,
        'POST',
        '/trpc/profile.put',
        withRawBytes(contract('MARK'), 'MARK'),
      );
      expect(rawTrpc.status).toBe(422);
      expect(rawTrpc.body.error.data.error).toMatchObject({
        code: 'invalid_configuration',
        problems: [expect.objectContaining({ code: 'not_unicode' })],
      });
      expect((await d.agent.get(PROFILE)).body).toBeNull();
      const run = {
        ...contract(`keep ${LONE} backups`),
        input: 'x',
        provider: { kind: 'scripted', rounds: [{ final: 'f' }] },
      };
      const created = await d.agent.post(`${d.ws}/runs`, run);
      expect(created.status).toBe(422);
      expect(created.body.error.problems[0].pointer).toBe('/action_contract/constraints/0');
      expect((await d.member.get(`${d.ws}/runs`)).body.runs).toEqual([]);
    });

    it('a reason or constraint holding NUL is refused at every door with 422 holds_nul; nothing is stored', async () => {
      d = await kernels.deploy(backend);
      const path = `${d.ws}/overlays/user/me`;
      const before = (await d.member.get(path)).body;
      const overlay = await d.member.put(path, {
        expected_digest: before.digest,
        groups: [
          {
            ruleSetId: 'supervised',
            rules: [{ verdict: 'deny', guardrail: true, tools: ['bash'], reason: 'no\u0000' }],
          },
        ],
      });
      expect(overlay.status).toBe(422);
      expect(overlay.body.error.problems).toEqual([
        expect.objectContaining({ code: 'holds_nul', pointer: '/groups/0/rules/0/reason' }),
      ]);
      expect((await d.member.get(path)).body).toEqual(before);
      const profile = await d.agent.put(PROFILE, contract('keep \u0000 backups'));
      expect(profile.status).toBe(422);
      expect(profile.body.error.problems[0]).toMatchObject({
        code: 'holds_nul',
        pointer: '/action_contract/constraints/0',
      });
      expect((await d.agent.get(PROFILE)).body).toBeNull();
      const created = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        approval_rules: [{ tool: 'bash', verdict: 'deny', reason: 'r\u0000' }],
        input: 'x',
        provider: { kind: 'scripted', rounds: [{ final: 'f' }] },
      });
      expect(created.status).toBe(422);
      expect(created.body.error.problems[0].pointer).toBe('/approval_rules/0/reason');
      expect((await d.member.get(`${d.ws}/runs`)).body.runs).toEqual([]);
      // A pattern may look for a NUL the call holds: it is matched, never shown.
      const matching = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        approval_rules: [{ tool: 'bash', verdict: 'deny', path: 'command', match: '*\u0000*' }],
        input: 'x',
        provider: { kind: 'scripted', rounds: [{ final: 'f' }] },
      });
      expect(matching.status).toBe(201);
    });

    it('what the model reads and says may hold any text: a lone surrogate in the input or a tool call is accepted', async () => {
      d = await kernels.deploy(backend);
      const created = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        input: `look ${LONE}`,
        provider: {
          kind: 'scripted',
          rounds: [{ tool_calls: [{ name: 'bash', input: { command: `echo ${LONE}` } }] }],
        },
      });
      expect(created.status).toBe(201);
      // A body of raw non-UTF-8 bytes is no JSON text on any other operation.
      const raw = await send(
        d,
        d.tokens.member,
        'POST',
        `${d.ws}/runs/${created.body.id}/stop`,
        withRawBytes({ reason: 'MARK' }, 'MARK'),
      );
      expect(raw.status).toBe(400);
      expect(raw.body.error.code).toBe('invalid_json');
      const rawTrpc = await send(
        d,
        d.tokens.member,
        'POST',
        '/trpc/runs.stop',
        withRawBytes(
          { workspace_id: d.workspaceId, run_id: created.body.id, reason: 'MARK' },
          'MARK',
        ),
      );
      expect(rawTrpc.status).toBe(400);
      expect(rawTrpc.body.error.data.error.code).toBe('invalid_json');
      expect((await d.member.get(`${d.ws}/runs/${created.body.id}`)).body.state).not.toBe(
        'stopped',
      );
    });
  });
}
