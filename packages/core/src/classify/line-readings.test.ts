import { describe, expect, it } from 'vitest';
import { classifyShellSegments } from './segment-walker.js';

/** `sh -c 'LINE' &>/dev/null`: bash and sh read the same word, in two different commands. */
const shOf = (line: string) => `sh -c '${line.replaceAll("'", "'\\''")}' &>/dev/null`;

describe('lines a POSIX sh runs', () => {
  it('reads a line run by sh as sh reads it as well as bash', () => {
    const segments = classifyShellSegments("sh -c '[[ x || rm -rf victim ]]'");
    expect(segments.map((segment) => segment.command)).toContain('rm -rf victim ]]');
    const bash = classifyShellSegments("bash -c '[[ x || rm -rf victim ]]'");
    expect(bash.map((segment) => segment.command)).not.toContain('rm -rf victim ]]');
  });

  it('reads a bounded number of lines twice, so nested sh -c does not double at each level', () => {
    let line = 'rm -rf victim';
    for (let level = 0; level < 7; level++) line = shOf(line);
    // Two readings at every level would walk the innermost line 2^7 times.
    const innermost = classifyShellSegments(line).filter((segment) =>
      segment.command.startsWith('rm -rf victim'),
    );
    expect(innermost.length).toBeGreaterThan(0);
    expect(innermost.length).toBeLessThanOrEqual(20);
  });
});
