import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FILES, documentSelector } from './server-options.js';

const packageJson = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8'),
);

describe('the files the extension lints by default', () => {
  it("include a repository's .airlock/permissions.json, which rules-lint checks as a project overlay", () => {
    const patterns = documentSelector({ files: [], tools: '' }).map((filter) => filter.pattern);
    expect(patterns).toContain('**/.airlock/permissions.json');
  });

  it('are the ones the settings declare as the default', () => {
    expect(
      packageJson.contributes.configuration.properties['airlockRulesLint.files'].default,
    ).toEqual([...DEFAULT_FILES]);
  });
});
