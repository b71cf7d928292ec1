import type { ActionTag } from './tags.js';

/** helm 3's own commands (with their aliases); any other verb runs a plugin. */
const HELM_COMMANDS = new Set([
  ...['completion', 'create', 'dependency', 'dep', 'dependencies', 'env', 'get', 'help'],
  ...['history', 'hist', 'install', 'lint', 'list', 'ls', 'package', 'plugin', 'pull', 'fetch'],
  ...['push', 'registry', 'repo', 'rollback', 'search', 'show', 'inspect', 'status', 'template'],
  ...['test', 'uninstall', 'un', 'delete', 'del', 'upgrade', 'verify', 'version'],
]);

/** helm's global options that take the next word as their value (`--kube-context NAME`). */
export const HELM_VALUED = new Set([
  ...['-n', '--namespace', '--kube-context', '--kubeconfig', '--registry-config', '--qps'],
  ...['--repository-cache', '--repository-config', '--burst-limit', '--kube-apiserver'],
  ...['--kube-as-user', '--kube-as-group', '--kube-ca-file', '--kube-token'],
  ...['--kube-tls-server-name'],
]);

/** helm's words past its options (and their values): its verb, then the verb's operands. */
function operands(args: readonly string[]): string[] {
  const words: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (!arg.startsWith('-')) words.push(arg.toLowerCase());
    else if (HELM_VALUED.has(arg)) index++;
  }
  return words;
}

/**
 * The verbs of helm that act on this machine, read after `external` was
 * added: `repo add`/`update` fetch a repository's index into the local
 * configuration (`write`, `network`; `repo remove` and `index` `write`),
 * `pull` saves a chart archive (`write`, `network`), `dependency update`/
 * `build` download the charts a chart depends on into its `charts/`
 * (`install_local`, `network`, `write`), `create` and `package` write a
 * chart, and `plugin install`/`update` fetch a plugin and run its hooks
 * (`install_local`, `network`, `write`, `unknown`). A verb helm does not
 * have runs a plugin's program, which is not read (`unknown`).
 */
export function helmTags(args: readonly string[], tags: Set<ActionTag>): void {
  const [verb = '', subverb = ''] = operands(args);
  const add = (...found: ActionTag[]) => {
    for (const tag of found) tags.add(tag);
  };
  if (verb !== '' && !HELM_COMMANDS.has(verb)) add('unknown');
  else if (verb === 'repo' && (subverb === 'add' || subverb === 'update' || subverb === 'up')) {
    add('write', 'network');
  } else if (verb === 'repo' && /^(remove|rm|index)$/.test(subverb)) add('write');
  else if (verb === 'pull' || verb === 'fetch') add('write', 'network');
  else if (/^dep(endency|endencies)?$/.test(verb) && /^(update|up|build)$/.test(subverb)) {
    add('install_local', 'network', 'write');
  } else if (verb === 'plugin' && /^(install|add|update|up)$/.test(subverb)) {
    add('install_local', 'network', 'write', 'unknown');
  } else if (verb === 'create' || verb === 'package') add('write');
}
