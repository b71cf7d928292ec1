import { describe, expect, it } from 'vitest';
import type { PermissionRule } from '../schemas/permissions.js';
import { decideShell as decide, denySecrets } from './fixtures/shell-decide.js';

const denyEnv: PermissionRule = { verdict: 'deny', targets: ['**/.env'] };

describe('a variable the line sets past a plain assignment', () => {
  // Each of these, run by bash 5.2 in a folder whose `list` holds `secrets/key`, reads that file.
  it.each([
    'v=src/a; read v < list; cat $v',
    'v=src/a; read -r v < list; cat "$v"',
    'v=src/a; builtin read v < list; cat $v',
    'v=src/a; while read -r v; do cat $v; done < list',
    'v=src/a; mapfile -t v < list; cat $v',
    'v=src/a; readarray v < list; cat $v',
    "v=src/a; printf -v v '\\x73ecrets/key'; cat $v",
    "v=src/a; printf -vv '\\x73ecrets/key'; cat $v",
    "v=src/a; v[0]=$'\\x73'ecrets/key; cat $v",
    'v=src/a; declare -n r=v; read r < list; cat $v',
    'v=src/a; declare -n r; r=v; read r < list; cat $v',
  ])('asks for %j, whose value the line does not say', (command) => {
    expect(decide(command, [denySecrets])).toMatchObject({ verdict: 'ask', index: 0 });
  });

  it.each([
    'IFS=x; v=axsecrets/key; cat $v',
    'v=axsecrets/key; IFS=x; cat $v',
    'export IFS=x; v=axsecrets/key; cat $v',
    'for IFS in x; do v=axsecrets/key; cat $v; done',
    'read IFS < sep; v=axsecrets/key; cat $v',
  ])('asks for %j, whose IFS splits a value into a guarded path', (command) => {
    expect(decide(command, [denySecrets])).toMatchObject({ verdict: 'ask', index: 0 });
  });

  it('asks for a delete of a value an IFS splits into a guarded name', () => {
    expect(decide('v=ax.env; IFS=x; rm $v', [denyEnv]).verdict).toBe('ask');
  });

  it.each([
    'v=src/a.ts; read -r answer < list; cat $v',
    "v=src/a.ts; printf -v w '%s' x; cat $v",
    "IFS=$'\\n'; v=src/a.ts; cat $v",
    'IFS=; v=src/a.ts; cat $v',
    'v=src/a.ts; declare -r v; cat $v',
  ])('grants %j, whose values are all known', (command) => {
    expect(decide(command, [denySecrets]).verdict).toBe('allow');
  });
});
