import { hasFlag } from './flags.js';
import { pluginTags } from './plugin-verbs.js';
import type { ActionTag } from './tags.js';

/** Options of docker, podman and nerdctl (and of `compose`) before the verb that take a value. */
export const CONTAINER_VALUED = new Set([
  ...['-c', '--context', '-H', '--host', '-l', '--log-level', '--config', '--tlscacert'],
  ...['--tlscert', '--tlskey', '--root', '--runroot', '--url', '--connection', '--identity'],
  ...['--storage-driver', '--cgroup-manager', '--events-backend', '--tmpdir', '--runtime'],
  ...['--namespace', '-n', '--address', '-a', '--snapshotter', '--cni-path', '--data-root'],
  ...['-f', '--file', '-p', '--project-name', '--env-file', '--profile', '--project-directory'],
  ...['--ansi', '--progress', '--parallel'],
]);
/** Options before the verb that take none. */
const FLAGS = new Set([
  ...['-D', '--debug', '--tls', '--tlsverify', '--remote', '-r', '--version', '-v', '--help'],
  ...['--compatibility', '--dry-run', '--all-resources', '--insecure-registry'],
]);
/** Words that name a group of verbs: the verb is the word after them. */
const GROUPS = new Set(['image', 'compose', 'container']);

/**
 * The verb of a container engine's command line (`docker --context x run`
 * is `run`; `docker compose -f a.yml exec` is `exec`), lowercase, and
 * whether an option before it is one the classifier does not know (it may
 * take the verb as its value).
 */
export function containerVerb(args: readonly string[]): {
  verb: string;
  /** The first word after the engine's options (`compose` in `docker compose up`). */
  command: string;
  unknownOption: boolean;
} {
  let unknownOption = false;
  let command = '';
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg.startsWith('-')) {
      if (CONTAINER_VALUED.has(arg)) index++;
      else if (!FLAGS.has(arg) && !/^--[^=]+=/.test(arg)) unknownOption = true;
      continue;
    }
    const word = arg.toLowerCase();
    command ||= word;
    if (!GROUPS.has(word)) return { verb: word, command, unknownOption };
  }
  return { verb: '', command, unknownOption };
}

/** Whether the verb builds an image (`build`, `buildx build`, `buildx bake`, `builder build`). */
function builds(verb: string, args: readonly string[]): boolean {
  if (verb === 'build') return true;
  return (
    (verb === 'buildx' || verb === 'builder') && args.some((arg) => /^(build|bake)$/.test(arg))
  );
}
/** Verbs that start a container from an image, pulled first when missing. */
const STARTS = new Set(['run', 'create', 'up']);

/** Whether `--pull never` (`--pull=never`) keeps a verb from pulling a missing image. */
function neverPulls(args: readonly string[]): boolean {
  const at = args.indexOf('--pull');
  return args.includes('--pull=never') || (at >= 0 && args[at + 1] === 'never');
}

/** Whether `-o FILE`, `-oFILE`, `--output FILE` or `--output=FILE` names a file written. */
function namesOutput(args: readonly string[]): boolean {
  return args.some((arg) => arg === '--output' || /^(-o|--output=)/.test(arg));
}

/**
 * Container engines (docker, podman, nerdctl, and their `compose`). Pulling
 * replaces a tag in the daemon's image store, which every user and container
 * of the host resolves, as does loading an archive of images; logging in or
 * out replaces the registry credential every later command uses. Both
 * replace shared state, so both are `destructive` as docs/action-contracts.md
 * defines it. A container's command (`run`, `exec`, `create`, `up`, `attach`)
 * and a build's steps run code the classifier does not read (`unknown`), and
 * `run`, `create`, `up` and a build pull the images they lack.
 */
export function containerTags(
  program: string,
  args: readonly string[],
  tags: Set<ActionTag>,
): void {
  const { verb, command, unknownOption } = containerVerb(args);
  pluginTags(program, args, tags, command);
  const add = (...found: ActionTag[]) => {
    for (const tag of found) tags.add(tag);
  };
  if (unknownOption) tags.add('unknown');
  if (verb === 'pull') add('network', 'install_local', 'destructive');
  else if (verb === 'login' || verb === 'logout') add('network', 'write', 'destructive');
  else if (verb === 'down' && hasFlag(args, '-v', '--volumes', '--rmi'))
    add('delete', 'destructive');
  else if (verb === 'exec' || verb === 'attach') add('unknown');
  else if (STARTS.has(verb)) {
    // The container runs a command the classifier does not read, on whatever the host mounts into it.
    add('unknown');
    if (!neverPulls(args)) add('network', 'install_local');
  } else if (builds(verb, args)) {
    add('unknown', 'network', 'install_local');
    // `--output type=local,dest=DIR` (buildx) writes the result into DIR.
    if (namesOutput(args)) add('write');
  } else if (verb === 'load') add('install_local', 'destructive');
  else if (verb === 'import') add('install_local');
  // `cp` writes the destination (a host path, or the container's), unless it streams a tar to `-`.
  else if (verb === 'cp' && args.at(-1) !== '-') add('write');
  else if ((verb === 'save' || verb === 'export') && namesOutput(args)) add('write');
}
