import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_STATUS } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './samples.js';

/** The server README's error table: each status row and the codes it names. */
function errorTable(): Map<number, string[]> {
  const text = readFileSync(join(REPO_ROOT, 'packages/server/README.md'), 'utf8');
  const section = text.slice(text.indexOf('### Errors'));
  const rows = new Map<number, string[]>();
  for (const line of section.split('\n')) {
    const row = /^\| (\d{3}) \| (.*) \|$/.exec(line);
    if (!row) continue;
    // Only the code named first in each entry counts (explanations may quote others).
    const codes = row[2]!
      .split(/, (?=`)/)
      .map((entry) => /^`([a-z_]+)`/.exec(entry)?.[1])
      .filter((code): code is string => code !== undefined);
    rows.set(Number(row[1]), codes);
  }
  return rows;
}

describe("the server README's error table", () => {
  it('lists every code of the closed table, under its status, and no other', () => {
    const table = errorTable();
    const listed = [...table.entries()].flatMap(([status, codes]) =>
      codes.map((code) => [code, status] as const),
    );
    expect(Object.fromEntries(listed)).toEqual(ERROR_STATUS);
    expect(listed).toHaveLength(Object.keys(ERROR_STATUS).length);
  });
});
