import type { ActionTag } from './tags.js';

/** kubectl's global options that take the next word as their value (`--context NAME`). */
export const KUBECTL_VALUED = new Set([
  ...['-n', '--namespace', '--context', '--kubeconfig', '--cluster', '--user', '-s', '--server'],
  ...['--token', '--as', '--as-group', '--as-uid', '--request-timeout', '-v', '--cache-dir'],
]);
/** `kubectl config` verbs that only print the kubeconfig. */
const READS = new Set(['view', 'get-contexts', 'get-clusters', 'get-users', 'current-context']);
/** Verbs that change it: every later kubectl command uses the cluster and credentials it names. */
const WRITES = new Set([
  ...['set', 'set-context', 'set-cluster', 'set-credentials', 'use-context', 'use'],
  ...['rename-context', 'unset'],
]);
const DELETES = new Set(['delete-context', 'delete-cluster', 'delete-user']);

/** The words of a `kubectl`/`oc` command line without its options (and their values). */
export function kubectlOperands(args: readonly string[]): string[] {
  const words: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (!arg.startsWith('-')) words.push(arg);
    else if (KUBECTL_VALUED.has(arg)) index++;
  }
  return words;
}

/**
 * `kubectl config` (and `oc config`) acts on the user's kubeconfig, not on a
 * cluster: reading it is `read` alone; setting or switching a context,
 * cluster or credential replaces what every later command reaches (`write`,
 * `external`, `destructive`, as `git config --global` is), and deleting one
 * is `delete` in their place of `write`. Any other command keeps `external`.
 */
export function kubectlConfigTags(args: readonly string[], tags: Set<ActionTag>): void {
  const [verb, subverb = ''] = kubectlOperands(args);
  if (verb !== 'config') return;
  if (READS.has(subverb)) {
    tags.delete('external');
    tags.add('read');
  } else if (WRITES.has(subverb) || DELETES.has(subverb)) {
    tags.add(DELETES.has(subverb) ? 'delete' : 'write');
    tags.add('destructive');
  }
}
