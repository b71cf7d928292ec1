import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPERATION_CONTRACTS } from './protocol/operations/registry.js';
import { SUBSCRIPTION_CONTRACTS } from './protocol/subscriptions.js';
import { OPERATION_ROUTES, SUBSCRIPTION_PATHS } from './wire.js';

/** The modules a source file loads at run time (type-only imports and exports left out). */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/^(?:import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)';/gms)) {
    if (!match[1]) found.push(match[2]!);
  }
  return found;
}

describe('@airlock/core/wire', () => {
  it('loads no schema library: every module it reaches at run time is plain code', () => {
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
    visit(join(import.meta.dirname, 'wire.ts'));
    expect([...packages]).toEqual([]);
    // wire.ts, bearer.ts, kernel-limits.ts, request-target.ts, routes.ts and sockets.ts:
    // constants and small functions.
    expect(seen.size).toBeLessThan(7);
  });

  it('has a route for exactly the operations and subscriptions the contracts declare, as they declare it', () => {
    expect(Object.keys(OPERATION_ROUTES)).toEqual(Object.keys(OPERATION_CONTRACTS));
    for (const [name, contract] of Object.entries(OPERATION_CONTRACTS)) {
      const route = OPERATION_ROUTES[name as keyof typeof OPERATION_ROUTES];
      expect(contract.name).toBe(name);
      expect({ method: contract.method, path: contract.path }).toEqual({
        method: route.method,
        path: route.path,
      });
      expect('jsonLines' in contract ? contract.jsonLines : undefined).toBe(
        'jsonLines' in route ? route.jsonLines : undefined,
      );
    }
    for (const [name, contract] of Object.entries(SUBSCRIPTION_CONTRACTS)) {
      expect(contract.path).toBe(SUBSCRIPTION_PATHS[name as keyof typeof SUBSCRIPTION_PATHS]);
    }
    expect(Object.keys(SUBSCRIPTION_PATHS)).toEqual(Object.keys(SUBSCRIPTION_CONTRACTS));
  });
});
