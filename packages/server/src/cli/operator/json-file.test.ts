import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../command-line.js';
import { JSON_FILE_MAX_BYTES, readJsonFile } from './json-file.js';

describe("an operator command's --file", () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-json-file-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a JSON file, and names a missing one as a usage error', () => {
    const file = join(dir, 'policy.json');
    writeFileSync(file, '{"rules": []}');
    expect(readJsonFile(file, 'airlock approvals set')).toEqual({ rules: [] });
    expect(() => readJsonFile(join(dir, 'none.json'), 'airlock approvals set')).toThrow(
      /cannot read .*none\.json \(ENOENT\)/,
    );
  });

  it('stops at its bound instead of reading an endless file into memory (/dev/zero)', () => {
    let thrown: unknown;
    try {
      readJsonFile('/dev/zero', 'airlock overlays');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as Error).message).toBe(
      `airlock overlays: /dev/zero is larger than ${JSON_FILE_MAX_BYTES} bytes, more than any rule or policy document`,
    );
  });
});
