import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderStateDiagram } from './state-diagram.js';
import { TASK_VERB_NAMES } from './task-machine.js';
import { TASK_STATES } from './task-states.js';

const page = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  '..',
  '..',
  'docs',
  'task-states.md',
);

describe('docs/task-states.md', () => {
  it('is what the state machine tables render (run gen:task-states after changing them)', () => {
    expect(readFileSync(page, 'utf8')).toBe(renderStateDiagram());
  });

  it('draws every task state and names every verb', () => {
    const rendered = renderStateDiagram();
    for (const state of TASK_STATES) expect(rendered).toContain(` ${state} --> `);
    for (const verb of TASK_VERB_NAMES) expect(rendered).toContain(`| \`${verb}\` |`);
  });
});
