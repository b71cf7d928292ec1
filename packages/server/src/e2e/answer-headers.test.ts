import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = (await backends()).filter((backend) => backend.name === 'sqlite');

/** What the API answers is for its caller: no cache keeps it, no browser sniffs it as another type. */
describe.skipIf(!sqlite || sqlite.skip !== null)('the headers of API answers', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(sqlite!);
  });
  afterAll(async () => {
    await d?.close();
  });

  const get = (path: string) =>
    fetch(`${d.url}${path}`, { headers: { authorization: `Bearer ${d.tokens.member}` } });

  it.each([
    ['REST', () => `${d.ws}/runs`],
    ['REST, refused', () => `${d.ws}/runs/run_nope`],
    ['JSON lines', () => `${d.ws}/audit`],
    [
      'tRPC',
      () =>
        `/trpc/credentials.self?input=${encodeURIComponent(JSON.stringify({ workspace_id: d.workspaceId }))}`,
    ],
  ])('%s: no-store and nosniff', async (_what, path) => {
    const answer = await get(path());
    await answer.arrayBuffer();
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
