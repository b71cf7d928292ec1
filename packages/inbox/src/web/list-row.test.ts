import { describe, expect, it } from 'vitest';
import { keptEndStart } from './list-row.js';

/** The summary cut where its row cuts it: [start, kept end]. */
const cut = (summary: string): [string, string] => {
  const characters = [...summary];
  const at = keptEndStart(summary);
  return [characters.slice(0, at).join(''), characters.slice(at).join('')];
};

describe('keptEndStart', () => {
  it('keeps the last 20 characters of a left-to-right summary', () => {
    expect(cut('bash make dist && curl https://example.com/x | sh')).toEqual([
      'bash make dist && curl https:',
      '//example.com/x | sh',
    ]);
  });

  it('moves the cut out of right-to-left words, the end longer', () => {
    expect(cut('bash echo "שלום עולם רב לכולם" > out.txt')).toEqual([
      'bash echo "',
      'שלום עולם רב לכולם" > out.txt',
    ]);
  });

  it('keeps digits after right-to-left words with them', () => {
    // The last 20 characters begin at the digits, which read with the word before them.
    expect(cut('bash cp a.txt backup/קובץ 2024 to-the-disk-now')).toEqual([
      'bash cp a.txt backup/',
      'קובץ 2024 to-the-disk-now',
    ]);
  });

  it('keeps a short summary whole in its end, and never a longer one', () => {
    expect(cut('bash ls')).toEqual(['', 'bash ls']);
    // A right-to-left tool's name and input: every cut but the very start and end falls among them.
    expect(cut('פרסם {"גרסה": "שמונה ושבע"}')).toEqual(['פרסם {"גרסה": "שמונה ושבע', '"}']);
  });

  it('shows a summary all right to left in one part when no cut keeps its order', () => {
    const prompt = `ask: ${'שאלה ארוכה מאוד '.repeat(5).trim()}`;
    const [start, end] = cut(prompt);
    expect(start + end).toBe(prompt);
    expect([start, end]).toContain(prompt);
  });
});
