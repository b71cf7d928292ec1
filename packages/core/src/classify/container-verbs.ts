/** Options of docker, podman and nerdctl (and of `compose`) before the verb that take a value. */
const VALUED = new Set([
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
export function containerVerb(args: readonly string[]): { verb: string; unknownOption: boolean } {
  let unknownOption = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg.startsWith('-')) {
      if (VALUED.has(arg)) index++;
      else if (!FLAGS.has(arg) && !/^--[^=]+=/.test(arg)) unknownOption = true;
      continue;
    }
    const word = arg.toLowerCase();
    if (!GROUPS.has(word)) return { verb: word, unknownOption };
  }
  return { verb: '', unknownOption };
}
