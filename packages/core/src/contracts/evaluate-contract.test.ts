import { describe, expect, it } from 'vitest';
import { evaluateActionContract } from './evaluate-contract.js';
import { type ActionContract, validateActionContract } from './validate-contract.js';

function contract(declaration: Record<string, unknown>): ActionContract {
  const result = validateActionContract({ contract_version: 1, ...declaration });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.value;
}

const bash = (command: string) => ({ toolName: 'bash', toolInput: { command } });

describe('evaluateActionContract', () => {
  it('refuses on forbidden before anything else, naming the rule', () => {
    const decision = evaluateActionContract(
      contract({
        authorization: { forbidden: ['action:destructive'], allowed: ['action:delete'] },
      }),
      bash('ls && rm -rf build'),
    );
    expect(decision).toMatchObject({
      layer: 'action_contract',
      verdict: 'deny',
      rule: { list: 'forbidden', index: 0, text: 'action:destructive' },
      reminders: [],
    });
    expect(decision?.detail).toContain('authorization.forbidden[0] `action:destructive`');
    expect(decision?.detail).toContain('read, delete, destructive');
  });

  it('refuses an argv padded with a word that is not a string, as it refuses the plain one', () => {
    const declared = contract({
      authorization: { forbidden: ['action:destructive'], requires_user: ['action:unknown'] },
    });
    for (const command of [
      ['rm', '-rf', '/srv/data', null],
      ['rm', '-rf', '/srv/data', 0],
      [['rm', '-rf', '/srv/data']],
    ]) {
      expect(
        evaluateActionContract(declared, { toolName: 'bash', toolInput: { command } })?.verdict,
      ).toBe('deny');
    }
    // A command field with no words at all is unknown: the catch-all asks a person.
    expect(
      evaluateActionContract(declared, { toolName: 'bash', toolInput: { command: { x: 1 } } })
        ?.verdict,
    ).toBe('ask');
  });

  it('keeps 004 precedence: must_not over requires_user over allowed', () => {
    const declared = contract({
      authorization: { requires_user: ['action:install_local'], allowed: ['tool:bash'] },
      must_and_must_not: { must_not: ['command-prefix:NPM PUBLISH'] },
    });
    expect(evaluateActionContract(declared, bash('  npm publish'))?.verdict).toBe('deny');
    expect(evaluateActionContract(declared, bash('npm i left-pad'))?.verdict).toBe('ask');
    expect(evaluateActionContract(declared, bash('ls'))).toMatchObject({
      verdict: 'allow',
      rule: { list: 'allowed' },
    });
  });

  it('a refusing or asking command-prefix also reads each simple command the line runs', () => {
    const declared = contract({
      must_and_must_not: { must_not: ['command-prefix:git push'] },
      authorization: { requires_user: ['command-prefix:kubectl  apply'] },
    });
    for (const command of [
      'ls; git push',
      'ls\ngit push',
      '# note\ngit push origin main',
      'cd x && git push',
      'sudo git push',
      '"git" push',
      "bash -c 'git  push'",
      'echo $(git push)',
      `ls ${'a'.repeat(9000)}; git push`,
    ]) {
      expect(evaluateActionContract(declared, bash(command))?.verdict, command).toBe('deny');
    }
    expect(evaluateActionContract(declared, bash('ls && kubectl apply -f x'))?.verdict).toBe('ask');
    for (const command of ['git status', 'echo "git push"', 'ls git push']) {
      expect(evaluateActionContract(declared, bash(command))?.verdict, command).not.toBe('deny');
    }
  });

  it('an allowed command-prefix stays the literal beginning of the command', () => {
    const declared = contract({ authorization: { allowed: ['command-prefix:npm test'] } });
    expect(evaluateActionContract(declared, bash('npm test'))?.rule?.list).toBe('allowed');
    expect(evaluateActionContract(declared, bash('ls; npm test'))).toBeNull();
  });

  it('does not apply to a call no rule matches', () => {
    const declared = contract({ authorization: { forbidden: ['tool:deploy'] } });
    expect(evaluateActionContract(declared, bash('ls'))).toBeNull();
    expect(evaluateActionContract(declared, { toolName: 'Deploy', toolInput: {} })?.verdict).toBe(
      'deny',
    );
  });

  it('turns would-refuse and would-ask into reminders in shadow mode', () => {
    const declared = contract({
      enforcement: 'shadow',
      authorization: { forbidden: ['action:network'], requires_user: ['action:write'] },
    });
    const refused = evaluateActionContract(declared, bash('curl https://x.dev'));
    expect(refused).toMatchObject({ verdict: 'allow', rule: { list: 'forbidden' } });
    expect(refused?.reminders).toEqual([expect.stringContaining('would have been refused')]);
    const asked = evaluateActionContract(declared, bash('touch x'));
    expect(asked?.reminders).toEqual([
      expect.stringContaining("would have needed a person's answer"),
    ]);
  });

  it('reminds of natural-language constraints on a high-risk call, even when allowed', () => {
    const declared = contract({
      authorization: { allowed: ['action:install_local'] },
      constraints: ['do not install locally'],
    });
    const decision = evaluateActionContract(declared, bash('sudo pip install requests'));
    expect(decision?.verdict).toBe('allow');
    expect(decision?.reminders).toEqual([expect.stringContaining('"do not install locally"')]);
    expect(evaluateActionContract(declared, bash('ls'))).toBeNull();
  });
});
