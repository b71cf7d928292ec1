import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (relative: string) => readFileSync(new URL(relative, import.meta.url), 'utf8');
const lint = JSON.parse(read('../package.json'));
const root = JSON.parse(read('../../../package.json'));

/** The [major, minor] of a ">=MAJOR.MINOR" range or a version. */
function majorMinor(version: string): [number, number] {
  const match = /(\d+)\.(\d+)/.exec(version);
  if (!match) throw new Error(`no version in ${version}`);
  return [Number(match[1]), Number(match[2])];
}

describe('the Node versions @airlock/rules-lint declares', () => {
  it("declares the repository's engines.node, which the Node running these tests satisfies", () => {
    expect(lint.engines?.node).toBe(root.engines.node);
    const [major, minor] = majorMinor(lint.engines.node);
    const [runningMajor, runningMinor] = majorMinor(process.versions.node);
    expect(runningMajor * 1000 + runningMinor).toBeGreaterThanOrEqual(major * 1000 + minor);
  });

  it('states it in the README', () => {
    const [major, minor] = majorMinor(lint.engines.node);
    expect(read('../README.md')).toContain(`It runs on Node ${major}.${minor} or later`);
  });
});
