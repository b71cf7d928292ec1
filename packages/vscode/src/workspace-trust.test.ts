import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

interface Manifest {
  capabilities?: {
    untrustedWorkspaces?: { supported: boolean | 'limited'; restrictedConfigurations?: string[] };
    virtualWorkspaces?: { supported: boolean };
  };
  contributes: { configuration: { properties: Record<string, unknown> } };
}

const manifest = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8'),
) as Manifest;

describe('the extension under workspace trust', () => {
  it('runs in Restricted Mode, with the setting that names a file outside the workspace taken from user settings only', () => {
    // Without the declaration VS Code disables the extension in every untrusted folder.
    const untrusted = manifest.capabilities?.untrustedWorkspaces;
    expect(untrusted?.supported).toBe('limited');
    expect(untrusted?.restrictedConfigurations).toEqual(['airlockRulesLint.tools']);
    for (const setting of untrusted?.restrictedConfigurations ?? [])
      expect(Object.keys(manifest.contributes.configuration.properties)).toContain(setting);
  });

  it('says it cannot lint a virtual workspace: the server reads files from disk', () => {
    expect(manifest.capabilities?.virtualWorkspaces?.supported).toBe(false);
  });
});
