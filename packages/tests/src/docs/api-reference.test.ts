import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKernel, type TestKernel } from '../support/kernel.js';
import { type OpenApiDocument, renderApiReference } from './api-reference.js';
import { REPO_ROOT } from './samples.js';

describe('docs/api-reference.md', () => {
  let kernel: TestKernel;
  beforeAll(async () => {
    kernel = await startTestKernel();
  });
  afterAll(async () => {
    await kernel?.close();
  });

  it('is what the kernel OpenAPI document generates (pnpm --filter @airlock/tests gen:api-reference)', async () => {
    const document = (await (await fetch(`${kernel.url}/openapi.json`)).json()) as OpenApiDocument;
    const committed = readFileSync(join(REPO_ROOT, 'docs', 'api-reference.md'), 'utf8');
    expect(committed).toBe(renderApiReference(document));
    for (const path of Object.keys(document.paths)) expect(committed).toContain(path);
  });
});
