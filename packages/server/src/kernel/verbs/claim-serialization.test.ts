import { describe, expect, it } from 'vitest';
import { serializationKeys } from './claim-serialization.js';

const MANIFEST = [
  {
    name: 'write_file',
    input_schema: { type: 'object' },
    risk_traits: ['write'],
    targets: [{ pointer: '/path', kind: 'path' }],
  },
];

/** The lock keys of a write_file call of `path` on a run whose project root is `root`. */
function keysOf(path: string, root: string | undefined): string[] {
  return serializationKeys(
    {
      run_id: 'run_1',
      tool_name: 'write_file',
      resolved_tool_name: 'write_file',
      tool_input: JSON.stringify({ path, content: 'x' }),
    },
    { tool_manifest: MANIFEST, ...(root === undefined ? {} : { project_root: root }) },
  );
}

describe('the path locks of a file mutation', () => {
  it('give one file one key, whichever way a run spelled its project root', () => {
    const key = ['path:/srv/app/src/a.ts'];
    for (const root of ['/srv/app', '/srv/app/', '/srv/./app', '//srv//app', '/srv/x/../app']) {
      expect(keysOf('src/a.ts', root)).toEqual(key);
    }
    // Named by its absolute path, from a run with another root, the file is the same file.
    expect(keysOf('/srv/app/src/a.ts', '/other')).toEqual(key);
    expect(keysOf('./src/../src/a.ts', '/srv/app')).toEqual(key);
  });

  it('keeps a path outside the root absolute, and a run without a root keyed as before', () => {
    expect(keysOf('../etc/passwd', '/srv/app')).toEqual(['path:/srv/etc/passwd']);
    expect(keysOf('src/a.ts', undefined)).toEqual(['path:/src/a.ts']);
    expect(keysOf('.', '/srv/app')).toEqual(['path:/srv/app']);
  });
});
