import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment } from '../testing/harness.js';
import { deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

/** A tRPC query's answer: its status and the kernel error it carries. */
async function trpcQuery(d: Deployment, procedure: string, input: unknown) {
  const encoded = encodeURIComponent(JSON.stringify(input));
  const response = await fetch(`${d.url}/trpc/${procedure}?input=${encoded}`, {
    headers: { authorization: `Bearer ${d.tokens.member}` },
  });
  const body = await response.json();
  return { status: response.status, error: body?.error?.data?.error, body };
}

describe('numbers in a query string and a tRPC input are strict', () => {
  let d: Deployment;
  let runId: string;
  beforeAll(async () => {
    d = await deploy(sqlite!);
    runId = (
      await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        input: 'x',
        provider: { kind: 'scripted', rounds: [{ final: 'done' }] },
      })
    ).body.id;
  });
  afterAll(async () => {
    await d.close();
  });

  it.each([
    ['limit', '0x3'],
    ['limit', '1e2'],
    ['limit', '%203'],
    ['limit', ''],
    ['limit', '+3'],
    ['limit', '3.0'],
    ['limit', '03'],
    ['limit', '-1'],
  ])('refuses %s=%s on REST with invalid_input naming the field', async (name, value) => {
    const answer = await d.member.get(`${d.ws}/runs?${name}=${value}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('invalid_input');
    expect(answer.body.error.problems[0].pointer).toBe(`/${name}`);
    expect(answer.body.error.detail).toContain(name);
  });

  it('refuses after= and since= that are not plain decimal digits, on events and the audit', async () => {
    for (const path of [
      `${d.ws}/runs/${runId}/events?after=1e1`,
      `${d.ws}/runs/${runId}/audit?after=0x1`,
      `${d.ws}/audit?since=%201`,
      `${d.ws}/audit?since=`,
      `${d.ws}/audit?limit=1e3`,
    ]) {
      const answer = await d.member.get(path);
      expect(answer.status, path).toBe(400);
      expect(answer.body.error.code, path).toBe('invalid_input');
    }
  });

  it('still reads plain digits, and checks their range', async () => {
    const page = await d.member.get(`${d.ws}/runs?limit=3`);
    expect(page.status).toBe(200);
    expect((await d.member.get(`${d.ws}/runs/${runId}/events?after=0&limit=1`)).status).toBe(200);
    expect((await d.member.get(`${d.ws}/audit?since=0&limit=10000`)).status).toBe(200);
    const tooMany = await d.member.get(`${d.ws}/runs?limit=1001`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.problems[0].pointer).toBe('/limit');
    const huge = await d.member.get(`${d.ws}/audit?since=99999999999999999999`);
    expect(huge.status).toBe(400);
    expect(huge.body.error.problems[0].pointer).toBe('/since');
  });

  it.each([
    ['a string', '3'],
    ['an array', [2]],
    ['a boolean', true],
    ['null', null],
    ['a fraction', 2.5],
  ])('refuses limit as %s over tRPC', async (_, limit) => {
    const answer = await trpcQuery(d, 'runs.list', { workspace_id: d.workspaceId, limit });
    expect(answer.status).toBe(400);
    expect(answer.error.code).toBe('invalid_input');
    expect(answer.error.problems[0].pointer).toBe('/limit');
  });

  it('documents limit, after and since as integers with their bounds', async () => {
    const document = await (await fetch(`${d.url}/openapi.json`)).json();
    const parameter = (path: string, name: string) =>
      document.paths[path].get.parameters.find((p: { name: string }) => p.name === name).schema;
    const runs = '/api/v1/workspaces/{workspace_id}/runs';
    expect(parameter(runs, 'limit')).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000 });
    const audit = '/api/v1/workspaces/{workspace_id}/audit';
    expect(parameter(audit, 'since')).toMatchObject({ type: 'integer', minimum: 0 });
    expect(parameter(audit, 'after')).toMatchObject({ type: 'integer', minimum: 0 });
  });

  it('takes limit as a number over tRPC', async () => {
    const answer = await trpcQuery(d, 'runs.list', { workspace_id: d.workspaceId, limit: 2 });
    expect(answer.status).toBe(200);
  });
});
