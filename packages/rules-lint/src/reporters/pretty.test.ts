import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCaptured } from '../testing/capture.js';
import { escapeForTerminal, sourceLineForTerminal } from './terminal-text.js';

const dir = mkdtempSync(join(tmpdir(), 'rules-lint-pretty-'));

describe('--format pretty on control characters from the file', () => {
  it('prints terminal escapes and line breaks from rule text escaped', async () => {
    const tool =
      'bs\u001b[31mRED\u001b[0m\u001b]0;TITLE\u0007ah\n::error file=x.json,line=1::injected';
    writeFileSync(
      join(dir, 'escapes.json'),
      JSON.stringify({ tool_names: ['bash'], approval_rules: [{ tool, verdict: 'allow' }] }),
    );
    const run = await runCaptured(['check', 'escapes.json'], dir);
    expect(run.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(run.stdout.split('\n').some((line) => line.startsWith('::'))).toBe(false);
    expect(run.stdout).toContain(
      'tool "bs\\u001b[31mRED\\u001b[0m\\u001b]0;TITLE\\u0007ah\\n::error file=x.json,line=1::injected"',
    );
  });

  it('keeps the caret under a source line that holds control characters', async () => {
    // A .jsonc comment may hold raw control characters; the quoted line shows each as one character.
    writeFileSync(
      join(dir, 'comment.jsonc'),
      '[{"tool": "bash", "verdict": "maybe"} /* \u001b[2J\u0007 */]\n',
    );
    const run = await runCaptured(['check', 'comment.jsonc'], dir);
    expect(run.stdout).toContain(
      '1 | [{"tool": "bash", "verdict": "maybe"} /* \u241b[2J\u2407 */]',
    );
    expect(run.stdout).not.toMatch(/[\u001b\u0007]/);
  });
});

describe('--format github on control characters from the file', () => {
  it('prints terminal escapes from rule text escaped, line breaks as the workflow command wants', async () => {
    const tool = 'bs\u001b[31mRED\u001b[0m\u0007%\n::error::injected';
    writeFileSync(
      join(dir, 'github.json'),
      JSON.stringify({ tool_names: ['bash'], approval_rules: [{ tool, verdict: 'allow' }] }),
    );
    const run = await runCaptured(['check', '--format', 'github', 'github.json'], dir);
    expect(run.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(run.stdout.split('\n').filter((line) => line.startsWith('::error::'))).toEqual([]);
    expect(run.stdout).toContain('bs\\u001b[31mRED\\u001b[0m\\u0007%25%0A::error::injected');
  });
});

describe('terminal text', () => {
  it('escapes C0, DEL, C1 and the Unicode line separators, and nothing else', () => {
    expect(escapeForTerminal('a\tb\nc\u001b\u007f\u009b\u2028é')).toBe(
      'a\\tb\\nc\\u001b\\u007f\\u009b\\u2028é',
    );
    expect(sourceLineForTerminal('\ta\u0000\u007f\u0085')).toBe('\ta\u2400\u2421\uFFFD');
  });
});
