import { describe, expect, it } from 'vitest';
import type { PermissionRule } from '../schemas/permissions.js';
import { decideShell as decide, denySecrets } from './fixtures/shell-decide.js';

const denyEnv: PermissionRule = { verdict: 'deny', targets: ['**/.env'] };

describe('the words of a command whose program is an expansion', () => {
  // bash 5.2 ran `X=cat; $X .env` and `$(echo cat) .env`, printing .env.
  it.each([
    '$X .env',
    'X=cat; $X .env',
    'v=cat; "$v" .env',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
    '${X:-cat} .env',
    '$(echo cat) .env',
    '`echo cat` .env',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
    '"${a[@]}" .env',
    '$X $Y .env',
  ])('asks for %j under a deny of **/.env', (command) => {
    expect(decide(command, [denyEnv]).verdict).toBe('ask');
  });

  it('reads them under a deny of secrets/** too, and grants what names nothing guarded', () => {
    expect(decide('$X secrets/key', [denySecrets]).verdict).toBe('ask');
    expect(decide('$PYTHON scripts/build.py', [denySecrets]).verdict).toBe('allow');
    expect(decide('"$EDITOR" src/a.ts', [denyEnv]).verdict).toBe('allow');
  });
});
