import type { OverlayDocument } from '@airlock/core';
import { afterEach, describe, expect, it } from 'vitest';
import { isAirlockError } from '../errors.js';
import { backends } from '../testing/stores.js';
import { createWorkspace } from './accounts.js';
import {
  EMPTY_OVERLAY_DIGEST,
  type OverlayKey,
  overlayDigest,
  readOverlay,
  replaceOverlay,
  trustOverlay,
} from './overlays.js';
import type { Store } from './store.js';

const all = await backends();
const doc = (ruleSetId: string): OverlayDocument => [{ ruleSetId, rules: [{ verdict: 'allow' }] }];

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`overlay documents (${backend.name})`, () => {
    const disposers: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const dispose of disposers.splice(0)) await dispose();
    });

    async function setup(scope: OverlayKey['scope'] = 'project') {
      const opened = await backend.open();
      disposers.push(opened.dispose);
      const ws = await createWorkspace(opened.store, 'w');
      const key: OverlayKey = { workspaceId: ws.id, scope, ownerId: 'owner-1' };
      return { store: opened.store, key };
    }

    const write = (
      store: Store,
      key: OverlayKey,
      expectedDigest: string,
      document: OverlayDocument,
    ) =>
      store.transaction((tx) =>
        replaceOverlay(tx, key, { expectedDigest, document, by: 'member:m' }),
      );

    it('digests are canonical: key order does not change them', () => {
      const a = overlayDigest([{ ruleSetId: 'x', rules: [{ verdict: 'allow', tools: ['a'] }] }]);
      const b = overlayDigest([{ rules: [{ tools: ['a'], verdict: 'allow' }], ruleSetId: 'x' }]);
      expect(a).toBe(b);
      expect(a).not.toBe(EMPTY_OVERLAY_DIGEST);
    });

    it('of two racing writers that read the same digest, exactly one wins', async () => {
      const { store, key } = await setup();
      for (const expected of [EMPTY_OVERLAY_DIGEST, null]) {
        const from = expected ?? (await readOverlay(store, key)).digest;
        const results = await Promise.allSettled([
          write(store, key, from, doc(`a-${from}`)),
          write(store, key, from, doc(`b-${from}`)),
        ]);
        const won = results.filter((r) => r.status === 'fulfilled');
        const lost = results.filter((r) => r.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        const reason = (lost[0] as PromiseRejectedResult).reason;
        expect(isAirlockError(reason) && reason.code).toBe('stale_digest');
        const current = await readOverlay(store, key);
        expect(current.digest).toBe(
          (won[0] as PromiseFulfilledResult<{ digest: string }>).value.digest,
        );
      }
    });

    it('trust holds for one exact digest; keepTrust carries it over a member-written change', async () => {
      const { store, key } = await setup();
      const first = await write(store, key, EMPTY_OVERLAY_DIGEST, doc('s'));
      expect(first.active).toBe(false);
      await expect(
        store.transaction((tx) => trustOverlay(tx, key, { digest: EMPTY_OVERLAY_DIGEST, by: 'm' })),
      ).rejects.toMatchObject({ code: 'stale_digest' });
      const trusted = await store.transaction((tx) =>
        trustOverlay(tx, key, { digest: first.digest, by: 'member:m' }),
      );
      expect(trusted).toMatchObject({ active: true, trusted_digest: first.digest });
      const kept = await store.transaction((tx) =>
        replaceOverlay(tx, key, {
          expectedDigest: first.digest,
          document: doc('t'),
          by: 'member:m',
          keepTrust: true,
        }),
      );
      expect(kept.active).toBe(true);
      const changed = await write(store, key, kept.digest, doc('u'));
      expect(changed).toMatchObject({ active: false, trusted_digest: kept.digest });
    });
  });
}
