import { describe, expect, it } from 'vitest';
import {
  DIFF_EDITS_MAX,
  diffLinesOf,
  fileChangeOf,
  lineDiff,
  unifiedPatch,
} from './diff-source.js';

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

  it('shows a change with too many changed lines whole, removed then added, without comparing', () => {
    const lines = (word: string, count: number) =>
      Array.from({ length: count }, (_, i) => `${word} ${i}`).join('\n');
    // Every line differs: as many removed and added as the bound allows, and one more.
    const many = DIFF_EDITS_MAX / 2 + 1;
    const whole = lineDiff({
      path: 'a',
      before: `${lines('old', many)}\n`,
      after: lines('new', many),
    });
    expect(whole.compared).toBe(false);
    expect(whole.lines).toHaveLength(2 * many);
    expect(whole.lines[0]).toEqual({ kind: 'removed', text: 'old 0' });
    expect(whole.lines[many]).toEqual({ kind: 'added', text: 'new 0' });
    expect(whole.lines.at(-1)).toEqual({ kind: 'added', text: `new ${many - 1}` });
    // A long file with one line changed is compared as before.
    const file = lines('line', 20_000);
    const one = lineDiff({
      path: 'a',
      before: file,
      after: file.replace('line 7000\n', 'LINE 7000\n'),
    });
    expect(one.compared).toBe(true);
    expect(one.lines.filter((line) => line.kind !== 'kept')).toEqual([
      { kind: 'removed', text: 'line 7000' },
      { kind: 'added', text: 'LINE 7000' },
    ]);
    // At the bound, still compared.
    const at = DIFF_EDITS_MAX / 2;
    expect(
      lineDiff({ path: 'a', before: lines('old', at), after: lines('new', at) }).compared,
    ).toBe(true);
  });
});
