import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageOf, undeclaredTypeImports } from './tarballs.js';

describe('the .d.ts dependency check', () => {
  it('names each package a declaration imports that the manifest does not declare', () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-dts-'));
    try {
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({ name: '@x/pkg', dependencies: { zod: '4', '@types/ws': '8' } }),
      );
      mkdirSync(join(dir, 'dist'));
      writeFileSync(
        join(dir, 'dist', 'index.d.ts'),
        [
          "import type { z } from 'zod';",
          "import type { WebSocket } from 'ws';",
          "import type { Server } from 'node:http';",
          "import type { EventEmitter } from 'events';",
          "export type { AppRouter } from '@airlock/server';",
          "export type Own = import('@x/pkg/sub').T;",
          "import './local.js';",
        ].join('\n'),
      );
      expect(undeclaredTypeImports(dir)).toEqual(['dist/index.d.ts: @airlock/server']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the package of a specifier', () => {
    expect(packageOf('@airlock/core')).toBe('@airlock/core');
    expect(packageOf('openapi3-ts/oas31')).toBe('openapi3-ts');
    expect(packageOf('./x.js')).toBeNull();
    expect(packageOf('node:fs')).toBeNull();
  });
});
