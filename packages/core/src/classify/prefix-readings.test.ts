import { describe, expect, it } from 'vitest';
import { evaluateActionContract } from '../contracts/evaluate-contract.js';
import { validateActionContract } from '../contracts/validate-contract.js';

/** A contract refusing one command prefix; the verdict it gives a bash command. */
function verdict(prefix: string, command: string, list: 'must_not' | 'allowed' = 'must_not') {
  const validated = validateActionContract({
    contract_version: 1,
    ...(list === 'must_not'
      ? { must_and_must_not: { must_not: [`command-prefix:${prefix}`] } }
      : { authorization: { allowed: [`command-prefix:${prefix}`] } }),
  });
  if (!validated.ok) throw new Error('the contract does not validate');
  const decision = evaluateActionContract(validated.value, {
    toolName: 'bash',
    toolInput: { command },
  });
  return decision?.verdict ?? 'none';
}

describe("a refusing command-prefix rule reads past a program's global options", () => {
  it.each([
    ['git push', 'git -C some/dir push origin main'],
    ['git push', 'git -C "my dir" push'],
    ['git push', 'git -c user.name=x push'],
    ['git push', 'git -cuser.name=x push'],
    ['git push', 'git --git-dir=x/.git push'],
    ['git push', 'git --git-dir x/.git --work-tree x push --force'],
    ['git push', 'git --no-pager push'],
    ['git push', 'git -P -C a -C b push'],
    ['git push', '/usr/bin/git -C x push'],
    ['git push', 'cd x && sudo git -C y push'],
    ['git push --force', 'git -C x push --force'],
    ['git push', 'git -C x -- push'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
    ['git push', 'git ${X} push'],
    ['git push', 'git $OPTS push origin'],
    ['docker push', 'docker --context prod push app:1'],
    ['docker push', 'docker -H tcp://h:2375 push app:1'],
    ['kubectl delete', 'kubectl -n prod delete pod x'],
    ['kubectl delete', 'kubectl --context prod --namespace=prod delete pod x'],
    ['helm uninstall', 'helm --kube-context prod uninstall app'],
  ])('%j refuses %j', (prefix, command) => {
    expect(verdict(prefix, command)).toBe('deny');
  });

  it.each([
    // An option's value is no verb: `-C push` is the folder named push.
    ['git push', 'git -C push status'],
    ['git push', 'git -c push.default=simple status'],
    ['git push', 'git --git-dir push log'],
    ['git push', 'git log push'],
    ['git push', 'git commit -m push'],
    ['git push --force', 'git -C x push origin'],
    ['kubectl delete', 'kubectl -n delete get pods'],
    ['docker push', 'docker --context push ps'],
    // Only the programs whose options are known: an unknown program keeps its words.
    ['tool push', 'tool -C x push'],
  ])('%j lets %j through', (prefix, command) => {
    expect(verdict(prefix, command)).toBe('none');
  });

  it('an allow stays the literal beginning of the command', () => {
    expect(verdict('git push', 'git push', 'allowed')).toBe('allow');
    expect(verdict('git push', 'git -C x push', 'allowed')).not.toBe('allow');
  });
});
