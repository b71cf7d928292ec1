import { describe, expect, it } from 'vitest';
import { carriedTags, commandsCarried } from '../classify/effect-profile.js';
import { classifyShellSegments } from '../classify/segment-walker.js';
import { SimpleCommands } from './command-prefix.js';

describe('SimpleCommands', () => {
  it('reads the segments the call was classified from, not the command again', () => {
    const simple = new SimpleCommands();
    const carried = commandsCarried({ command: 'ls; sudo "git" push' });
    expect(carriedTags(carried, simple.remember)).toContain('publish');
    expect(simple.of('ls; sudo "git" push')).toEqual(['ls', 'git push']);
    // Segments it was given are what it reads: nothing classifies the command a second time.
    simple.remember('rm -rf x', [{ command: 'Echo  Kept', via: [], tags: ['read'] }]);
    expect(simple.of('rm -rf x')).toEqual(['echo kept']);
  });

  it('reads a command it was given no segments for, as before', () => {
    const simple = new SimpleCommands();
    expect(simple.of('cd x && git push')).toEqual(
      classifyShellSegments('cd x && git push').map((segment) => segment.command),
    );
    expect(simple.blockingMatch('cd x && git push', 'git push')).toBe(true);
    expect(simple.of('x'.repeat(9000))).toBeNull();
  });
});

describe('SimpleCommands within the bound of one call', () => {
  it('reads commands up to 8,192 characters together, and matches the rest as text', () => {
    const simple = new SimpleCommands();
    const first = `${'ls; '.repeat(1500)}git push`;
    const second = `${'ls; '.repeat(1500)}sudo git push`;
    expect(simple.of(first)).toContain('git push');
    // Past the call's bound the second is not read: a refusing rule matches its text anywhere.
    expect(simple.of(second)).toBeNull();
    expect(simple.blockingMatch(second, 'git push')).toBe(true);
    expect(simple.blockingMatch(second, 'npm publish')).toBe(false);
  });
});

describe('a refusing command-prefix rule and a program named by its path', () => {
  it('binds the program however its path names it, and keeps the rule a prefix of words', () => {
    const simple = new SimpleCommands();
    for (const command of [
      '/usr/bin/git push',
      'ls && /usr/bin/git push origin main',
      'sudo ./bin/git push',
      '"/opt/git/bin/git" push',
      "bash -c '/usr/local/bin/git  push'",
    ]) {
      expect(simple.blockingMatch(command, 'git push'), command).toBe(true);
    }
    for (const command of [
      '/usr/bin/git status',
      '/usr/bin/gitx push',
      '/usr/bin/ git push',
      'ls /tmp/git push',
    ]) {
      expect(simple.blockingMatch(command, 'git push'), command).toBe(false);
    }
    // A rule written with the path still reads the command as written.
    expect(simple.blockingMatch('/usr/bin/git push', '/usr/bin/git push')).toBe(true);
  });
});
