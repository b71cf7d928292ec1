import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  BODY_ERROR_CODES,
  COMMON_ERROR_CODES,
  ERROR_STATUS,
  OPERATION_CONTRACTS,
} from '@airlock/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKernel, type TestKernel } from '../support/kernel.js';
import { fetchDocument, operationsOf, type ServedDocument } from './openapi-document.js';

const run = promisify(execFile);
const TESTS_ROOT = join(import.meta.dirname, '..', '..');

describe('the OpenAPI document', () => {
  let kernel: TestKernel;
  let document: ServedDocument;
  beforeAll(async () => {
    kernel = await startTestKernel();
    document = await fetchDocument(kernel);
  });
  afterAll(async () => {
    await kernel?.close();
  });

  it('lists every contract of @airlock/core once', () => {
    const served = [...operationsOf(document).keys()].sort();
    expect(served).toEqual(Object.keys(OPERATION_CONTRACTS).sort());
  });

  it("lists exactly the statuses of each operation's declared error codes", () => {
    const operations = operationsOf(document);
    for (const contract of Object.values(OPERATION_CONTRACTS)) {
      const codes = new Set<keyof typeof ERROR_STATUS>([...COMMON_ERROR_CODES, ...contract.errors]);
      if (contract.method === 'GET') {
        for (const code of BODY_ERROR_CODES) codes.delete(code);
      }
      const expected = [...new Set([...codes].map((code) => String(ERROR_STATUS[code])))].sort();
      const responses = operations.get(contract.name)!.responses;
      const errors = Object.keys(responses)
        .filter((status) => Number(status) >= 400)
        .sort();
      expect({ name: contract.name, statuses: errors }).toEqual({
        name: contract.name,
        statuses: expected,
      });
    }
  });

  it('answers the cases the issue names: resolve and append list 422, profile.get no 409, all 503', () => {
    const operations = operationsOf(document);
    expect(operations.get('decisions.resolve')!.responses['422']?.description).toContain(
      'invalid_resolution',
    );
    expect(operations.get('tasks.append')!.responses['422']?.description).toContain(
      'invalid_question',
    );
    expect(Object.keys(operations.get('profile.get')!.responses)).not.toContain('409');
    for (const operation of operations.values()) expect(operation.responses).toHaveProperty('503');
  });

  it('gives real schemas for the effect profile, the decision, the result and the rules', () => {
    const schemas = document.components.schemas as Record<
      string,
      { properties?: Record<string, unknown>; anyOf?: unknown[] }
    >;
    const task = schemas.Task!.properties!;
    expect(task.effect_profile).toEqual({
      anyOf: [{ $ref: '#/components/schemas/EffectProfile' }, { type: 'null' }],
    });
    expect(task.decision).toEqual({
      anyOf: [{ $ref: '#/components/schemas/Decision' }, { type: 'null' }],
    });
    expect(task.result).toMatchObject({ $ref: '#/components/schemas/JsonValue' });
    expect(schemas.JsonValue!.anyOf).toHaveLength(6);
    expect(schemas.EffectProfile!.properties).toHaveProperty('action_tags');
    expect(schemas.Decision!.properties).toHaveProperty('outcome');
    expect(schemas.Run!.properties!.approval_rules).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/ApprovalRule' },
    });
    // No schema anywhere accepts "anything" where the wire has a shape.
    expect(JSON.stringify(document)).not.toContain('"anyOf":[{},{"type":"null"}]');
  });

  it('marks a request body required exactly when it has a required field', () => {
    const operations = operationsOf(document);
    expect(operations.get('executor.commit')!.requestBody?.required).toBe(true);
    expect(operations.get('runs.create')!.requestBody?.required).toBe(true);
    expect(operations.get('decisions.approve')!.requestBody?.required).toBe(false);
    expect(operations.get('decisions.deny')!.requestBody?.required).toBe(false);
  });

  it('describes the profile declaration as the server accepts it, not as any JSON', () => {
    const put = operationsOf(document).get('profile.put')!;
    const schema = put.requestBody!.content['application/json']!.schema as {
      properties: Record<string, unknown>;
      additionalProperties?: unknown;
    };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.lifecycle_hooks).toMatchObject({
      anyOf: [{ $ref: expect.stringMatching(/LifecycleHooks/) }, { type: 'null' }],
    });
    expect(schema.properties.approval_rules).toMatchObject({ type: 'array' });
  });

  it('passes @redocly/cli lint with the recommended rules and no errors or warnings', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(document));
      const cli = join(TESTS_ROOT, 'node_modules', '.bin', 'redocly');
      const outcome = await run(cli, ['lint', '--extends=recommended', '--format=json', file], {
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      }).catch((error: { stdout?: string; stderr?: string; code?: number }) => error);
      const report = JSON.parse(outcome.stdout ?? '{}') as {
        totals?: { errors: number; warnings: number };
        problems?: { ruleId: string; message: string }[];
      };
      const problems = (report.problems ?? []).map((p) => `${p.ruleId}: ${p.message}`);
      expect({ totals: report.totals, problems }).toEqual({
        totals: expect.objectContaining({ errors: 0, warnings: 0 }),
        problems: [],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
