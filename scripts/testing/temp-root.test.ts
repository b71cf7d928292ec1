import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';

describe('the test run temporary root', () => {
  it('puts os.tmpdir() of a test, and of the processes it starts, under the run directory', () => {
    expect(basename(tmpdir())).toMatch(/^airlock-tests-/);
    const child = execFileSync(process.execPath, ['-p', 'require("node:os").tmpdir()'], {
      encoding: 'utf8',
    }).trim();
    expect(child).toBe(tmpdir());
  });
});
