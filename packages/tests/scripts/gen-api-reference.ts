// Regenerates docs/api-reference.md from the OpenAPI document a real kernel serves.
// Run: pnpm --filter @airlock/tests gen:api-reference
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type OpenApiDocument, renderApiReference } from '../src/docs/api-reference.js';
import { REPO_ROOT } from '../src/docs/samples.js';
import { startTestKernel } from '../src/support/kernel.js';

const kernel = await startTestKernel();
try {
  const document = (await (await fetch(`${kernel.url}/openapi.json`)).json()) as OpenApiDocument;
  const target = join(REPO_ROOT, 'docs', 'api-reference.md');
  writeFileSync(target, renderApiReference(document));
  process.stdout.write(`wrote ${target}\n`);
} finally {
  await kernel.close();
}
