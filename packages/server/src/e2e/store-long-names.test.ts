import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const postgres = (await backends()).find((backend) => backend.name === 'postgres')!;

/**
 * A name an index of the store holds (a call's tool name, its id) past what
 * PostgreSQL keeps in an index entry (about 2.7 kB) is refused as
 * invalid_input with nothing changed. It used to answer 500 internal. The
 * run's contract now refuses such a name before the store sees it.
 */

/** Incompressible text of `n` characters (PostgreSQL compresses an index entry before it measures). */
const noise = (n: number) => randomBytes(n).toString('base64url').slice(0, n);

describe.skipIf(postgres.skip !== null)('names too long to index (postgres)', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(postgres);
  });
  afterAll(async () => {
    await d?.close();
  });

  it('refuses a run whose scripted call has a 4000-character name or id, and starts none', async () => {
    for (const call of [{ name: noise(4000) }, { name: 'deploy', id: noise(4000) }]) {
      const answer = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        input: 'x',
        provider: { kind: 'scripted', rounds: [{ tool_calls: [call] }, { final: 'f' }] },
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('invalid_input');
      // The run's contract bounds them now (512 and 200 characters, as a gateway call's); the
      // store's own refusal (store-errors.test.ts) stays behind it for any other way in.
      expect(answer.body.error.detail).toMatch(/too_big|too long|<=(512|200)/i);
    }
    expect((await d.member.get(`${d.ws}/runs`)).body.runs).toEqual([]);
  });
});
