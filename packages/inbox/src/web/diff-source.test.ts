import { describe, expect, it } from 'vitest';
import { diffLinesOf, fileChangeOf, unifiedPatch } from './diff-source.js';

describe('the change a write or edit call proposes', () => {
  it('reads an edit by its old and new text', () => {
    const change = fileChangeOf('Edit', {
      file_path: 'src/a.ts',
      old_string: 'const a = 1;\nconst b = 2;',
      new_string: 'const a = 1;\nconst b = 3;',
    });
    expect(change).toEqual({
      path: 'src/a.ts',
      before: 'const a = 1;\nconst b = 2;',
      after: 'const a = 1;\nconst b = 3;',
    });
    expect(diffLinesOf(change!)).toEqual([
      { kind: 'kept', text: 'const a = 1;' },
      { kind: 'removed', text: 'const b = 2;' },
      { kind: 'added', text: 'const b = 3;' },
    ]);
    const patch = unifiedPatch(change!);
    expect(patch).toContain('--- src/a.ts\tcurrent');
    expect(patch).toContain('-const b = 2;');
    expect(patch).toContain('+const b = 3;');
  });

  it('reads a write against the current content when it was supplied, and nothing without it', () => {
    expect(
      fileChangeOf('write', { path: 'a.txt', content: 'new\n', current_content: 'old\n' }),
    ).toEqual({ path: 'a.txt', before: 'old\n', after: 'new\n' });
    expect(fileChangeOf('write', { path: 'a.txt', content: 'new\n' })).toBeNull();
    expect(fileChangeOf('bash', { command: 'ls' })).toBeNull();
    expect(fileChangeOf('bash', 'ls')).toBeNull();
  });

  it('joins the edits of a multi-edit', () => {
    const change = fileChangeOf('MultiEdit', {
      file_path: 'b.ts',
      edits: [
        { old_string: 'x', new_string: 'y' },
        { old_string: 'p', new_string: 'q' },
      ],
    });
    expect(change?.before).toBe('x\n…\np');
    expect(change?.after).toBe('y\n…\nq');
  });
});
