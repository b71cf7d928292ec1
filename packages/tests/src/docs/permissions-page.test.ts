import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKernel, type TestKernel } from '../support/kernel.js';
import { REPO_ROOT } from './samples.js';

describe('docs/permissions.md and the run view agree with the kernel', () => {
  let kernel: TestKernel;
  beforeAll(async () => {
    kernel = await startTestKernel();
  });
  afterAll(async () => {
    await kernel?.close();
  });

  function createRun(body: Record<string, unknown>) {
    return fetch(`${kernel.url}/api/v1/workspaces/${kernel.workspace.id}/runs`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${kernel.workspace.tokens.member}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        approval_mode: 'ask',
        provider: { kind: 'scripted', rounds: [{ final: 'done' }] },
        ...body,
      }),
    });
  }

  const manifest = [
    {
      name: 'edit_files',
      input_schema: { type: 'object', properties: { path: { type: 'string' } } },
      risk_traits: ['write'],
    },
  ];

  it('a schema that does not compile refuses the declaration with 422, as the page says', async () => {
    const response = await createRun({
      tool_manifest: [{ ...manifest[0], input_schema: { type: 'no-such-type' } }],
    });
    expect(response.status).toBe(422);
    const body = (await response.json()) as { error: { code: string; problems?: unknown } };
    expect(body.error.code).toBe('invalid_configuration');
    expect(JSON.stringify(body.error)).toContain('/tool_manifest/0/input_schema');
    const page = readFileSync(join(REPO_ROOT, 'docs', 'permissions.md'), 'utf8');
    expect(page).not.toContain('A schema that does not compile refuses every call');
    expect(page).toMatch(/refused with 422\s+`invalid_configuration`/);
  });

  it('the run view shows the frozen permission_rule_set, tool_manifest and contract_version', async () => {
    const response = await createRun({
      permission_rule_set: 'supervised',
      tool_manifest: manifest,
      action_contract: {
        contract_version: 3,
        authorization: { forbidden: ['action:destructive'] },
      },
    });
    expect(response.status).toBe(201);
    const created = (await response.json()) as { id: string };
    const shown = await fetch(
      `${kernel.url}/api/v1/workspaces/${kernel.workspace.id}/runs/${created.id}`,
      { headers: { authorization: `Bearer ${kernel.workspace.tokens.member}` } },
    );
    expect(await shown.json()).toMatchObject({
      permission_rule_set: 'supervised',
      tool_manifest: manifest,
      contract_version: 3,
    });

    const plain = (await (await createRun({})).json()) as Record<string, unknown>;
    expect(plain).toMatchObject({
      permission_rule_set: null,
      tool_manifest: null,
      contract_version: null,
    });
  });
});
