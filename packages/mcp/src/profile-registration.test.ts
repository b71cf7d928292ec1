import { describe, expect, it } from 'vitest';
import { manifestEntries } from './manifest.js';
import {
  problemsNamingTools,
  REGISTER_TOOL_MANIFEST,
  registerServerTools,
} from './profile-registration.js';

const entries = manifestEntries('fs', [
  { name: 'read_file', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
  { name: 'write_file', inputSchema: { type: 'object' } },
]);

describe('registering a server tools in the profile', () => {
  it("replaces the server's earlier names and keeps everything else", () => {
    const before = {
      approval_mode: 'rules',
      tool_names: ['bash', 'fs__old_tool', 'fsx__keep', 'memory__read_graph'],
    };
    expect(registerServerTools(before, 'fs', entries, { manifest: false })).toEqual({
      approval_mode: 'rules',
      tool_names: ['bash', 'fsx__keep', 'memory__read_graph', 'fs__read_file', 'fs__write_file'],
    });
    expect(registerServerTools(before, 'fs', entries)?.tool_manifest).toEqual(entries);
  });

  it('changes nothing when the names are already there, or the profile allows every tool', () => {
    const registered = { tool_names: ['fs__read_file', 'fs__write_file'] };
    expect(registerServerTools(registered, 'fs', entries, { manifest: false })).toBeNull();
    expect(
      registerServerTools({ approval_mode: 'ask' }, 'fs', entries, { manifest: false }),
    ).toBeNull();
    expect(
      registerServerTools({ ...registered, tool_manifest: entries }, 'fs', entries),
    ).toBeNull();
  });

  it('writes tool_manifest entries (on by default)', () => {
    expect(REGISTER_TOOL_MANIFEST).toBe(true);
    const next = registerServerTools(
      { tool_manifest: [{ name: 'fs__gone' }, { name: 'bash' }] },
      'fs',
      entries,
      { manifest: true },
    );
    expect(next?.tool_manifest).toEqual([{ name: 'bash' }, ...entries]);
  });
});

describe('registering in a profile that selects a permission rule set', () => {
  it('writes no first manifest, which would make every other tool of the agent ask', () => {
    const profile = { approval_mode: 'rules', permission_rule_set: 'autonomous' };
    expect(registerServerTools(profile, 'fs', entries)).toBeNull();
    expect(registerServerTools({ ...profile, tool_names: ['bash'] }, 'fs', entries)).toEqual({
      ...profile,
      tool_names: ['bash', 'fs__read_file', 'fs__write_file'],
    });
  });

  it('keeps a manifest it already declares up to date', () => {
    const profile = { permission_rule_set: 'supervised', tool_manifest: [{ name: 'bash' }] };
    expect(registerServerTools(profile, 'fs', entries)?.tool_manifest).toEqual([
      { name: 'bash' },
      ...entries,
    ]);
  });

  it('still writes a first manifest without a rule set (its schemas check the calls)', () => {
    expect(registerServerTools({ approval_mode: 'ask' }, 'fs', entries)?.tool_manifest).toEqual(
      entries,
    );
  });
});

describe("a refused registration's problems", () => {
  it('name the tool each one points into, and leave the others as they are', () => {
    const configuration = { tool_names: ['bash', 'fs__write_file'], tool_manifest: entries };
    const problem = (pointer: string) => ({
      code: 'tool_manifest_invalid',
      pointer,
      message: 'bad',
    });
    expect(
      problemsNamingTools(configuration, [
        problem('/tool_manifest/1/input_schema'),
        problem('/tool_names/0'),
        problem('/tool_manifest/9'),
        problem('/approval_rules/0/tool'),
      ]).map((p) => p.message),
    ).toEqual(['tool fs__write_file: bad', 'tool bash: bad', 'bad', 'bad']);
  });
});
