import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startAirlock } from './airlock.js';

const root = mkdtempSync(join(tmpdir(), 'airlock-options-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('startAirlock refuses a body limit that would turn the limit off', () => {
  it.each([[Number.NaN], [0], [-5], [1.5]])('%s', async (bodyLimit) => {
    const dataDir = join(root, `limit-${String(bodyLimit)}`);
    await expect(startAirlock({ dataDir, bodyLimit })).rejects.toThrow(
      /bodyLimit must be a whole number of bytes above 0/,
    );
    expect(existsSync(dataDir)).toBe(false);
  });
});
