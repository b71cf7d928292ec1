import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers loosely and assert on them.
type Loose = any;

// The SDK and tRPC clients send JSON (a boolean); the inbox, the CLI and a query string send text.
describe.skipIf(sqlite!.skip !== null)('credentials.list include_revoked', () => {
  let d: Deployment;
  let revoked: string;
  beforeAll(async () => {
    d = await deploy(sqlite!);
    revoked = (await addMember(d, 'Gone')).id;
    expect((await d.member.post(`${d.ws}/credentials/${revoked}/revoke`)).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await d?.close();
  });

  /** The ids tRPC lists for an input, or its status and error code when refused. */
  async function viaTrpc(input: Record<string, unknown>): Promise<string[] | [number, string]> {
    const query = encodeURIComponent(JSON.stringify({ workspace_id: d.workspaceId, ...input }));
    const response = await fetch(`${d.url}/trpc/credentials.list?input=${query}`, {
      headers: { authorization: `Bearer ${d.tokens.member}` },
    });
    const body = (await response.json()) as Loose;
    if (response.status !== 200) return [response.status, body.error.data.error.code];
    return body.result.data.credentials.map((c: Loose) => c.credential_id);
  }

  it('takes a JSON boolean over tRPC, as the text', async () => {
    expect(await viaTrpc({ include_revoked: true })).toContain(revoked);
    expect(await viaTrpc({ include_revoked: 'true' })).toContain(revoked);
    expect(await viaTrpc({ include_revoked: false })).not.toContain(revoked);
    expect(await viaTrpc({ include_revoked: 'no' })).not.toContain(revoked);
    expect(await viaTrpc({})).not.toContain(revoked);
  });

  it('still refuses what is neither a boolean nor its text, over tRPC and REST', async () => {
    expect(await viaTrpc({ include_revoked: 'maybe' })).toEqual([400, 'invalid_input']);
    expect(await viaTrpc({ include_revoked: 1 })).toEqual([400, 'invalid_input']);
    const listed = await d.member.get(`${d.ws}/credentials?include_revoked=maybe`);
    expect([listed.status, listed.body.error.code]).toEqual([400, 'invalid_input']);
    const texts = await d.member.get(`${d.ws}/credentials?include_revoked=true`);
    expect(texts.body.credentials.map((c: Loose) => c.credential_id)).toContain(revoked);
  });
});
