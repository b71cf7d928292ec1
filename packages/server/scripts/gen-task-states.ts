// Regenerates docs/task-states.md from the kernel's state machine tables.
// Run: pnpm --filter @airlock/server gen:task-states
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderStateDiagram } from '../src/kernel/machines/state-diagram.js';

const target = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'docs',
  'task-states.md',
);
writeFileSync(target, renderStateDiagram());
process.stdout.write(`wrote ${target}\n`);
