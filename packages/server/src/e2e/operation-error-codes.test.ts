import { ERROR_STATUS, type ErrorCode, OPERATION_CONTRACTS } from '@airlock/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { declaresCode, pathParams } from '../api/operation.js';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const sqlite = (await backends()).filter((backend) => backend.name === 'sqlite');

type Schema = Record<string, unknown>;

/** A smallest instance of a JSON Schema: required keys only, first enum, shortest strings. */
function sample(
  schema: Schema | boolean | undefined,
  defs: Record<string, Schema>,
  depth = 0,
): unknown {
  if (schema === undefined || typeof schema === 'boolean' || depth > 8) return null;
  if (typeof schema.$ref === 'string') {
    return sample(defs[schema.$ref.replace('#/$defs/', '')], defs, depth + 1);
  }
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = schema[key] as Schema[] | undefined;
    if (options?.[0]) return sample(options[0], defs, depth + 1);
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'object' || schema.properties) {
    const out: Record<string, unknown> = {};
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const key of (schema.required ?? []) as string[]) {
      out[key] = sample(properties[key], defs, depth + 1);
    }
    return out;
  }
  if (type === 'array') {
    const min = (schema.minItems as number | undefined) ?? 0;
    return Array.from({ length: min }, () => sample(schema.items as Schema, defs, depth + 1));
  }
  if (type === 'string') return 'x'.repeat((schema.minLength as number | undefined) ?? 1);
  if (type === 'integer' || type === 'number') return (schema.minimum as number | undefined) ?? 1;
  if (type === 'boolean') return false;
  return null;
}

function sampleInput(input: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' }) as Schema;
  return (sample(json, (json.$defs ?? {}) as Record<string, Schema>) ?? {}) as Record<
    string,
    unknown
  >;
}

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
          const params = pathParams(contract.path);
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
            const path = params.reduce(
              (text, param) =>
                text.replace(`{${param}}`, encodeURIComponent(values[param] ?? 'nope')),
              contract.path,
            );
            const full = sampleInput(contract.input);
            for (const param of params) delete full[param];
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
            a.status === 500 ||
            !declaresCode(
              OPERATION_CONTRACTS[a.operation.split(' ')[0] as keyof typeof OPERATION_CONTRACTS],
              a.code as ErrorCode,
            ) ||
            ERROR_STATUS[a.code as ErrorCode] !== a.status,
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
