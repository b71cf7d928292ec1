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

/** The change as lines, each marked added, removed or kept (the `diff` package's line diff). */
export function diffLinesOf(change: FileChange): DiffLine[] {
  const lines: DiffLine[] = [];
  for (const part of diffLines(change.before, change.after)) {
    const kind = part.added ? 'added' : part.removed ? 'removed' : 'kept';
    const text = part.value.endsWith('\n') ? part.value.slice(0, -1) : part.value;
    for (const line of text.split('\n')) lines.push({ kind, text: line });
  }
  return lines;
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
