import { OPERATION_CONTRACTS, type OperationName } from '@airlock/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kernelStores } from '../support/postgres.js';
import { PROBES } from './operation-matrix.js';
import { probeFindings, snapshotOf } from './probe-runner.js';
import {
  MARKS,
  madeUpLike,
  startTwoWorkspaces,
  TRANSPORTS,
  type TwoWorkspaces,
} from './two-workspaces.js';
import { callOperation } from './wire.js';

/*
 * One kernel, two workspaces (A and B), each with an agent application, an
 * agent, executor and admin member token, and a run in every state its
 * operations act on. Every operation of the contracts is called with each of
 * A's tokens, over REST and tRPC, naming B's things: a credential of another
 * plane is refused; one of its plane is answered as if B's things were
 * made-up ids of the same form (no answer tells that they exist), and no
 * answer holds anything of B's; and B reads afterwards what it read before.
 */
for (const store of await kernelStores()) {
  describe.skipIf(store.skip)(
    `a credential of one workspace and the things of another (${store.name})`,
    () => {
      let two: TwoWorkspaces;
      let before: unknown;
      beforeAll(async () => {
        two = await startTwoWorkspaces(await store.location());
        before = await snapshotOf(two.kernel.url, two.b, two.bThings);
      });
      afterAll(async () => {
        await two?.kernel.close();
      });

      it('has a probe row for every operation the server serves', async () => {
        const document = (await (await fetch(`${two.kernel.url}/openapi.json`)).json()) as {
          paths: Record<string, Record<string, { operationId?: string }>>;
        };
        const served = Object.values(document.paths).flatMap((methods) =>
          Object.values(methods).flatMap((operation) => operation.operationId ?? []),
        );
        expect(Object.keys(PROBES).sort()).toEqual([...new Set(served)].sort());
        expect(Object.keys(PROBES).sort()).toEqual(Object.keys(OPERATION_CONTRACTS).sort());
      });

      for (const name of Object.keys(PROBES) as OperationName[]) {
        it(`${name}: B's things are answered as made-up ones, and nothing of B's comes back`, async () => {
          const prober = {
            url: two.kernel.url,
            tokens: two.a.tokens,
            own: { workspace: two.a.id, things: two.aThings },
          };
          expect(await probeFindings(prober, name, { things: two.bThings, mark: MARKS.b })).toEqual(
            [],
          );
        });
      }

      it("refuses B's workspace id as a made-up one, on every operation that names a workspace", async () => {
        const findings: string[] = [];
        const madeUp = madeUpLike(two.b.id);
        for (const name of Object.keys(PROBES) as OperationName[]) {
          const contract = OPERATION_CONTRACTS[name];
          if (!('workspace_id' in contract.input.shape)) continue;
          for (const transport of TRANSPORTS) {
            for (const plane of contract.planes) {
              const token = two.a.tokens[plane];
              const call = (workspace_id: string) =>
                callOperation({
                  url: two.kernel.url,
                  transport,
                  token,
                  name,
                  input: {
                    ...PROBES[name][0]!.input(two.bThings, {
                      workspace: workspace_id,
                      things: two.aThings,
                    }),
                  },
                });
              const real = await call(two.b.id);
              const fake = await call(madeUp);
              const said = {
                status: real.status,
                code: real.error?.code,
                detail: real.error?.detail,
              };
              const other = {
                status: fake.status,
                code: fake.error?.code,
                detail: fake.error?.detail,
              };
              if (real.status !== 403 || JSON.stringify(said) !== JSON.stringify(other)) {
                findings.push(
                  `${name} ${transport} ${plane}: ${JSON.stringify(said)} / ${JSON.stringify(other)}`,
                );
              }
            }
          }
        }
        expect(findings).toEqual([]);
      });

      it('leaves every row of B as it was', async () => {
        expect(await snapshotOf(two.kernel.url, two.b, two.bThings)).toEqual(before);
      });
    },
  );
}
