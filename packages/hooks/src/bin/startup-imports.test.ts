import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** Bare modules the hook entry may load: Node's own and core's dependency-free tracing entry. */
const ALLOWED = [/^node:/, /^@airlock\/core\/tracing$/];

/** Static value imports and re-exports of a source file (`import type` loads nothing at run time). */
function importsOf(source: string): string[] {
  const found: string[] = [];
  const pattern = /^(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
  for (const match of source.matchAll(pattern)) found.push(match[1]!);
  return found;
}

/** Every bare module the file loads, following its relative imports through the package's sources. */
function bareModulesReached(entry: string): Set<string> {
  const bare = new Set<string>();
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('.')) {
        pending.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      } else {
        bare.add(specifier);
      }
    }
  }
  return bare;
}

describe('the hook entry an agent starts on every tool call', () => {
  it('loads no package but core tracing (no zod, no evaluator), so it starts fast', () => {
    const entry = fileURLToPath(new URL('./airlock-hook.ts', import.meta.url));
    const reached = [...bareModulesReached(entry)];
    expect(
      reached.filter((specifier) => !ALLOWED.some((allowed) => allowed.test(specifier))),
    ).toEqual([]);
    expect(reached).toContain('@airlock/core/tracing');
  });

  it('reads value imports and skips type-only ones', () => {
    expect(
      importsOf(
        "import type { A } from '@airlock/core';\nimport { b } from '@airlock/core';\nexport { c } from './c.js';\nimport 'node:fs';",
      ),
    ).toEqual(['@airlock/core', './c.js', 'node:fs']);
  });
});
