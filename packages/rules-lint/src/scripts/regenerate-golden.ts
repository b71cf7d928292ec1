/** Rewrites every golden case's expected `--format json` output. Review the diff before committing. */
import { writeFileSync } from 'node:fs';
import { expectedPath, goldenCases, runGoldenCase } from '../golden/golden-cases.js';

for (const name of goldenCases()) {
  const { stdout } = await runGoldenCase(name);
  writeFileSync(expectedPath(name), stdout);
  process.stdout.write(`wrote ${expectedPath(name)}\n`);
}
