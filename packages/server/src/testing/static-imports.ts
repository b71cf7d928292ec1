import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** The modules a source file loads as it loads (type-only and dynamic imports left out). */
function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/^(?:import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)';/gms)) {
    if (!match[1]) found.push(match[2]!);
  }
  return found;
}

/**
 * What a source module loads before its first line runs, through its static
 * imports: the packages it reaches (Node's own left out), and its package's
 * own modules, named relative to `sourceRoot`.
 */
export function reachedImports(
  entry: string,
  sourceRoot: string,
): { packages: string[]; modules: string[] } {
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
  return {
    packages: [...packages].sort(),
    modules: [...seen].map((file) => relative(sourceRoot, file)).sort(),
  };
}
