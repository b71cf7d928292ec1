import { describe, expect, it } from 'vitest';
import { inputFields, readableText } from './format.js';

describe('inputs as a person reads them', () => {
  it('keeps the real line breaks of a string field, never a \\n escape', () => {
    const fields = inputFields({ path: 'a.txt', content: 'line one\nline two\n' });
    expect(fields).toEqual([
      ['path', 'a.txt'],
      ['content', 'line one\nline two\n'],
    ]);
  });

  it('writes nested values as indented lines, with multi-line strings as blocks', () => {
    const text = readableText({ edits: [{ old: 'a\nb', new: 'c' }], force: true });
    expect(text).not.toContain('\\n');
    expect(text).toBe('\nedits: \n  - \n    old: |\n      a\n      b\n    new: "c"\nforce: true');
    expect(inputFields(['x', 1])[0]?.[1]).toBe('- "x"\n- 1');
  });
});
