import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reachedImports } from '../../testing/static-imports.js';

/** The packages a module reaches through its static imports. */
const packagesReached = (entry: string): string[] =>
  reachedImports(entry, join(import.meta.dirname, '..', '..')).packages;

// A usage error is told at Node's start-up cost only if nothing heavy loads before argv is read:
// the SDK and the contracts' Zod schemas load at the first call (or a value that needs a schema).
describe('an operator command loads no schema before it reads its command line', () => {
  it.each([
    'runs',
    'tokens',
    'decisions',
    'approvals',
    'overlays',
    'apps',
    'audit',
    'retention',
    'notifications',
    'connection',
  ])('%s reaches only @airlock/core/command-line', (name) => {
    expect(packagesReached(join(import.meta.dirname, `${name}.ts`))).toEqual([
      '@airlock/core/command-line',
    ]);
  });

  it.each(['serve', 'token'])(
    'airlock %s reads its command line before the kernel and its store load',
    (name) => {
      expect(packagesReached(join(import.meta.dirname, '..', `${name}.ts`))).toEqual([
        '@airlock/core/command-line',
      ]);
    },
  );

  it('the command line itself reaches no package before it knows the command', () => {
    expect(packagesReached(join(import.meta.dirname, '..', '..', 'cli.ts'))).toEqual([]);
  });

  it('the kernel caller, loaded at the first call, is where the SDK comes in', () => {
    expect(packagesReached(join(import.meta.dirname, 'kernel-caller.ts'))).toContain(
      '@airlock/sdk',
    );
  });
});
