import { OPERATION_CONTRACTS } from '@airlock/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { contractBreach, fillPath, sampleBody } from '../testing/operation-samples.js';
import { backends } from '../testing/stores.js';

const sqlite = (await backends()).filter((backend) => backend.name === 'sqlite');

interface Answered {
  operation: string;
  status: number;
  code: string;
  detail: string;
}

/*
 * Every operation, driven into its error paths over real HTTP (no token,
 * each plane's token, unknown runs and tasks, a real run with an unknown
 * task, the smallest input its schema allows, an empty body): every code
 * answered must be one its contract declares, with the status of the table.
 */
for (const backend of sqlite) {
  describe.skipIf(backend.skip !== null)(
    `every answered code is declared (${backend.name})`,
    () => {
      let d: Deployment;
      let realRun: string;
      beforeAll(async () => {
        d = await deploy(backend);
        const created = await d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'ask',
          input: 'x',
          provider: {
            kind: 'scripted',
            rounds: [{ tool_calls: [{ name: 'ls' }] }, { final: 'x' }],
          },
        });
        realRun = created.body.id;
        await waitFor(async () => {
          const tasks = (await d.member.get(`${d.ws}/runs/${realRun}/tasks`)).body.tasks;
          return tasks[0]?.state === 'needs_approval';
        });
      });
      afterAll(async () => {
        await d?.close();
      });

      it('drives each operation and finds no undeclared code', async () => {
        const answered: Answered[] = [];
        const tokens = { ...d.tokens, none: null } as Record<string, string | null>;
        for (const contract of Object.values(OPERATION_CONTRACTS)) {
          for (const runId of ['run_00000000000000000000000000', realRun]) {
            const values: Record<string, string> = {
              workspace_id: d.workspaceId,
              run_id: runId,
              task_key: 't99',
              conversation_id: 'conv_nope',
              credential_id: 'cred_nope',
              agent_application_id: 'app_nope',
              owner_id: 'owner_nope',
              scope: 'conversation',
            };
            const path = fillPath(contract.path, (param) =>
              encodeURIComponent(values[param] ?? 'nope'),
            );
            const full = sampleBody(contract);
            const bodies = contract.method === 'GET' ? [undefined] : [full, {}];
            for (const [plane, token] of Object.entries(tokens)) {
              for (const body of bodies) {
                const headers: Record<string, string> = {};
                if (token) headers.authorization = `Bearer ${token}`;
                if (body !== undefined) headers['content-type'] = 'application/json';
                const response = await fetch(`${d.url}${path}`, {
                  method: contract.method,
                  headers,
                  body: body === undefined ? undefined : JSON.stringify(body),
                });
                const text = await response.text();
                if (response.status < 400) continue;
                const error = (JSON.parse(text) as { error: { code: string; detail: string } })
                  .error;
                answered.push({
                  operation: `${contract.name} as ${plane}`,
                  status: response.status,
                  code: error.code,
                  detail: error.detail,
                });
              }
            }
          }
        }
        const undeclared = answered.filter(
          (a) =>
            contractBreach(
              OPERATION_CONTRACTS[a.operation.split(' ')[0] as keyof typeof OPERATION_CONTRACTS],
              a,
            ) !== null,
        );
        expect(undeclared).toEqual([]);
        // The drive reached past authentication and input checks into the handlers.
        const codes = new Set(answered.map((a) => a.code));
        for (const code of ['unauthenticated', 'forbidden', 'invalid_input', 'task_not_found']) {
          expect(codes).toContain(code);
        }
      }, 120_000);
    },
  );
}
