import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The modules a source file loads as it loads (type-only and dynamic imports left out). */
function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/^(?:import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)';/gms)) {
    if (!match[1]) found.push(match[2]!);
  }
  return found;
}

/** The packages a module reaches through its static imports, and its own modules' count. */
function packagesReached(entry: string): string[] {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of staticImports(file)) {
      if (specifier.startsWith('.')) visit(join(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else if (!specifier.startsWith('node:')) packages.add(specifier);
    }
  };
  visit(entry);
  return [...packages].sort();
}

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
