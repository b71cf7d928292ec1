import { createTwoFilesPatch, diffLines } from 'diff';

/** A file change a call proposes: the file, its text before and after. */
export interface FileChange {
  path: string;
  before: string;
  after: string;
}

type Input = Record<string, unknown>;

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function pathOf(input: Input): string {
  return str(input.file_path) ?? str(input.path) ?? str(input.filename) ?? 'file';
}

/**
 * The change an edit or write call proposes, when its input says enough:
 * an edit names the text it replaces (`old_string`/`new_string`, or an
 * `edits` list of them); a write names its new content and, where the
 * executor or the tool manifest supplied it, the file's current content
 * (`current_content`). Null for any other call.
 */
export function fileChangeOf(toolName: string, raw: unknown): FileChange | null {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const input = raw as Input;
  const path = pathOf(input);
  const oldText = str(input.old_string) ?? str(input.old_str);
  const newText = str(input.new_string) ?? str(input.new_str);
  if (oldText !== null && newText !== null) return { path, before: oldText, after: newText };
  if (Array.isArray(input.edits)) {
    const edits = (input.edits as Input[]).filter(
      (edit) => str(edit?.old_string) !== null && str(edit?.new_string) !== null,
    );
    if (edits.length === 0) return null;
    return {
      path,
      before: edits.map((edit) => edit.old_string as string).join('\n…\n'),
      after: edits.map((edit) => edit.new_string as string).join('\n…\n'),
    };
  }
  const content = str(input.content) ?? str(input.file_text) ?? str(input.text);
  const current = str(input.current_content);
  if (content !== null && current !== null && /write|edit|create|save/i.test(toolName)) {
    return { path, before: current, after: content };
  }
  return null;
}

/** One line of a rendered diff: added, removed or kept. */
export interface DiffLine {
  kind: 'added' | 'removed' | 'kept';
  text: string;
}

/**
 * The most changed lines a line diff looks for. The diff's cost grows with the input's lines
 * times the lines changed: a 350 KB write whose every line differs from the file held the page
 * for 40 s. Past it, the whole text before is shown removed and the whole text after added.
 */
export const DIFF_EDITS_MAX = 1000;

/** A change as lines; `compared` is false when it had too many changed lines to compare. */
export interface LineDiff {
  lines: DiffLine[];
  compared: boolean;
}

function linesOf(text: string, kind: DiffLine['kind']): DiffLine[] {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  return body.split('\n').map((line) => ({ kind, text: line }));
}

/**
 * The change as lines, each marked added, removed or kept (the `diff` package's line diff);
 * past {@link DIFF_EDITS_MAX} changed lines, every line before removed and every line after added.
 */
export function lineDiff(change: FileChange): LineDiff {
  const parts = diffLines(change.before, change.after, { maxEditLength: DIFF_EDITS_MAX });
  if (parts === undefined) {
    const before = change.before === '' ? [] : linesOf(change.before, 'removed');
    const after = change.after === '' ? [] : linesOf(change.after, 'added');
    return { lines: [...before, ...after], compared: false };
  }
  const lines = parts.flatMap((part) =>
    linesOf(part.value, part.added ? 'added' : part.removed ? 'removed' : 'kept'),
  );
  return { lines, compared: true };
}

/** The change as lines: see {@link lineDiff}. */
export function diffLinesOf(change: FileChange): DiffLine[] {
  return lineDiff(change).lines;
}

/** The change as a unified patch (for copying). */
export function unifiedPatch(change: FileChange): string {
  return createTwoFilesPatch(
    change.path,
    change.path,
    change.before,
    change.after,
    'current',
    'proposed',
  );
}
