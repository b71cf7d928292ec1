// Regenerates the openapi-typescript client types the OpenAPI client test checks against.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_TYPES_FILE, generateClientTypes } from '../src/openapi/client-types.js';
import { startTestKernel } from '../src/support/kernel.js';

const kernel = await startTestKernel();
try {
  const document = await (await fetch(`${kernel.url}/openapi.json`)).json();
  const file = join(import.meta.dirname, '..', 'src', 'openapi', CLIENT_TYPES_FILE);
  writeFileSync(file, await generateClientTypes(document));
  console.log(`wrote ${file}`);
} finally {
  await kernel.close();
}
