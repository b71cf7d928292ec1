import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as commandLine from './command-line.js';
import * as core from './index.js';

/** The modules a source file loads at run time (type-only imports and exports left out). */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/^(?:import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)';/gms)) {
    if (!match[1]) found.push(match[2]!);
  }
  return found;
}

describe('@airlock/core/command-line', () => {
  it('loads no package: every module it reaches at run time is plain code', () => {
    const seen = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const specifier of runtimeImports(file)) {
        if (specifier.startsWith('.'))
          visit(join(dirname(file), specifier.replace(/\.js$/, '.ts')));
        else packages.add(specifier);
      }
    };
    visit(join(import.meta.dirname, 'command-line.ts'));
    expect([...packages]).toEqual([]);
  });

  it('exports the same functions as the package index does', () => {
    const index = new Map(Object.entries(core));
    for (const [name, value] of Object.entries(commandLine))
      expect(index.get(name), name).toBe(value);
  });
});
