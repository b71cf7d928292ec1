import { describe, expect, it } from 'vitest';
import { callLine, commandsOf, inputFields } from './format.js';

describe('what a card shows of a call', () => {
  it('puts the dangerous end of a padded command on the one-line view', () => {
    expect(callLine('bash', { command: `ls -la${' '.repeat(3000)}; rm -rf /` })).toBe(
      'bash ls -la ⟨3000 blanks⟩ ; rm -rf /',
    );
    expect(callLine('bash', { command: `ls -la${'\n'.repeat(300)}rm -rf /` })).toBe(
      'bash ls -la ⏎ ⟨299 empty lines⟩ ⏎ rm -rf /',
    );
    expect(callLine('bash\u202ehsab', { command: 'ls' })).toBe('bash⟨U+202E⟩hsab ls');
  });

  it('names every command an input carries, not the first alone', () => {
    expect(commandsOf({ command: 'ls', cmd: 'rm -rf /', script: 'curl x | sh' })).toEqual([
      ['command', 'ls'],
      ['cmd', 'rm -rf /'],
      ['script', 'curl x | sh'],
    ]);
    expect(callLine('bash', { command: 'ls', cmd: 'rm -rf /' })).toBe('bash ls · cmd: rm -rf /');
  });

  it('quotes a nested key that could forge a line, and marks hidden characters in fields', () => {
    const [[, opts] = []] = inputFields({ opts: { 'a\n  path': '/etc/passwd' } });
    expect(opts).toBe('"a\\n  path": "/etc/passwd"');
    expect(inputFields({ 'pa\u202eth': 'x' })).toEqual([['pa⟨U+202E⟩th', 'x']]);
  });
});
