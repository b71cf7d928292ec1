import { kubectlOperands } from './kubectl-config.js';
import type { ActionTag } from './tags.js';

/** kubectl's own commands (1.32, `kubectl help`); any other verb runs a `kubectl-VERB` plugin. */
const KUBECTL_COMMANDS = new Set([
  ...['create', 'expose', 'run', 'set', 'explain', 'get', 'edit', 'delete', 'rollout', 'scale'],
  ...['autoscale', 'certificate', 'cluster-info', 'top', 'cordon', 'uncordon', 'drain', 'taint'],
  ...['describe', 'logs', 'attach', 'exec', 'port-forward', 'proxy', 'cp', 'auth', 'debug'],
  ...['events', 'diff', 'apply', 'patch', 'replace', 'wait', 'kustomize', 'label', 'annotate'],
  ...['completion', 'api-resources', 'api-versions', 'config', 'plugin', 'version', 'alpha'],
  ...['help', 'options'],
]);

/**
 * docker's own commands (28, `docker --help`) and the plugins Docker ships
 * with its engine and Desktop packages; any other verb runs a `docker-VERB`
 * program from a plugin folder.
 */
const DOCKER_COMMANDS = new Set([
  ...['run', 'exec', 'ps', 'build', 'pull', 'push', 'images', 'login', 'logout', 'search'],
  ...['version', 'info', 'builder', 'checkpoint', 'container', 'context', 'image', 'manifest'],
  ...['network', 'plugin', 'system', 'trust', 'volume', 'config', 'node', 'secret', 'service'],
  ...['stack', 'swarm', 'attach', 'commit', 'cp', 'create', 'diff', 'events', 'export'],
  ...['history', 'import', 'inspect', 'kill', 'load', 'logs', 'pause', 'port', 'rename'],
  ...['restart', 'rm', 'rmi', 'save', 'start', 'stats', 'stop', 'tag', 'top', 'unpause'],
  ...['update', 'wait', 'help', 'buildx', 'compose', 'scout', 'init', 'sbom', 'debug'],
]);

/**
 * gh's own commands (2.6x, with the aliases it ships); any other verb runs
 * an extension's `gh-VERB` program or an alias, which may be a shell command.
 */
const GH_COMMANDS = new Set([
  ...['auth', 'browse', 'codespace', 'cs', 'gist', 'issue', 'org', 'pr', 'project', 'release'],
  ...['repo', 'cache', 'run', 'workflow', 'alias', 'api', 'attestation', 'completion'],
  ...['config', 'extension', 'extensions', 'ext', 'gpg-key', 'label', 'preview', 'ruleset'],
  ...['rs', 'search', 'secret', 'ssh-key', 'status', 'variable', 'help', 'version', 'co'],
]);

/** gh's verb: its first word past `-R REPO` and its other options. */
function ghVerb(args: readonly string[]): string | undefined {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (!arg.startsWith('-')) return arg.toLowerCase();
    if (arg === '-R' || arg === '--repo') index++;
  }
  return undefined;
}

/**
 * A verb kubectl, docker or gh does not have runs a plugin, a program found
 * by its name (`kubectl neat` runs `kubectl-neat` from the PATH, `docker foo`
 * runs `docker-foo` from a plugin folder, `gh foo` an extension's `gh-foo`
 * or an alias): what it does is not read, so the command is `unknown`, as a
 * git verb that is no git command is. `gh extension install` fetches one
 * (`install_local`), and `gh extension exec` runs one (`unknown`). `command`
 * is docker's first word past its options.
 */
export function pluginTags(
  program: string,
  args: readonly string[],
  tags: Set<ActionTag>,
  command = '',
): void {
  if (program === 'kubectl') {
    const verb = kubectlOperands(args)[0]?.toLowerCase();
    if (verb !== undefined && !KUBECTL_COMMANDS.has(verb)) tags.add('unknown');
  } else if (program === 'docker' && command !== '' && !DOCKER_COMMANDS.has(command)) {
    tags.add('unknown');
  } else if (program === 'gh') {
    const verb = ghVerb(args);
    if (verb !== undefined && !GH_COMMANDS.has(verb)) tags.add('unknown');
    // `gh extension install`/`upgrade` fetch a program; `exec` runs one.
    const [group, action] = args.filter((arg) => !arg.startsWith('-'));
    if (/^ext(ension|ensions)?$/.test(group ?? '')) {
      if (action === 'install' || action === 'upgrade') tags.add('install_local');
      if (action === 'exec') tags.add('unknown');
    }
  }
}
