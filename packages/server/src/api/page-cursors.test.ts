import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';
import { decodeDecisionCursor, encodeDecisionCursor } from './page-cursors.js';

/** A cursor as the list writes one, of any three parts. */
function forged(parts: unknown[]): string {
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

/** Made-up cursors: ids no store keeps as sent, and bytes that are no UTF-8. */
const MADE_UP = [
  forged([1, 'run_a\u0000', 't1']),
  forged([1, 'run_a', '\u0000']),
  forged([1, 'run_\ud800', 't1']),
  Buffer.from([0x5b, 0x31, 0x2c, 0x22, 0xff, 0x22, 0x2c, 0x22, 0x61, 0x22, 0x5d]).toString(
    'base64url',
  ),
];

describe('decodeDecisionCursor', () => {
  it('reads back every cursor the list writes', () => {
    const row = { created_at: 1_796_000_000_000, run_id: 'run_é😀', key: 'call "x"' };
    expect(decodeDecisionCursor(encodeDecisionCursor(row))).toEqual({
      createdAt: row.created_at,
      runId: row.run_id,
      key: row.key,
    });
  });

  it('refuses a made-up cursor whose ids a store would refuse or read otherwise', () => {
    for (const cursor of MADE_UP) {
      expect(() => decodeDecisionCursor(cursor), cursor).toThrow(
        'cursor: not a cursor this decisions list returned',
      );
    }
  });
});

for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(`a made-up decisions cursor (${backend.name})`, () => {
    let d: Deployment;
    beforeAll(async () => {
      d = await deploy(backend);
    }, 60_000);
    afterAll(async () => {
      await d?.close();
    });

    it('is refused invalid_input on every store, as any cursor the list did not return', async () => {
      for (const cursor of MADE_UP) {
        const answer = await d.member.get(`${d.ws}/decisions?cursor=${cursor}`);
        expect(answer.status, cursor).toBe(400);
        expect(answer.body.error).toEqual({
          code: 'invalid_input',
          detail: 'cursor: not a cursor this decisions list returned',
          problems: [
            {
              code: 'invalid_cursor',
              pointer: '/cursor',
              message: 'not a cursor this decisions list returned; pass a next_cursor as it came',
            },
          ],
        });
      }
    });
  });
}
