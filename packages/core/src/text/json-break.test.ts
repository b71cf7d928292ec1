import { describe, expect, it } from 'vitest';
import { whereJsonBroke } from './json-break.js';

/** What whereJsonBroke says of a text JSON.parse refuses. */
function said(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return whereJsonBroke(error, text);
  }
  throw new Error('parsed');
}

describe('whereJsonBroke', () => {
  it('names the line and column, never the text around the break', () => {
    const text = '{\n  "env": { "API_KEY": sk-live-SECRET }\n}';
    const where = said(text);
    expect(where).toMatch(/^ \((line 2, column \d+|an unexpected "s")\)$/);
    expect(where).not.toContain('sk-live');
  });

  it('names the line and column where V8 gives a position', () => {
    expect(said('{"a": 1,\n "b": 2,,}')).toMatch(/^ \(line 2, column \d+\)$/);
  });

  it('says a text ends too soon', () => {
    expect(said('{"a": ')).toBe(' (it ends too soon)');
  });
});
