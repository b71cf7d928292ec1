import { CONTAINER_VALUED } from './container-verbs.js';
import { GIT_VALUED } from './git-tags.js';
import { HELM_VALUED } from './helm-verbs.js';
import { KUBECTL_VALUED } from './kubectl-config.js';
import { programName } from './program-paths.js';
import { type ClassifiedSegment, wordsOfSegment } from './walk.js';

/**
 * The options each program takes before its verb that take the next word as their value;
 * any other word starting with `-` there is read as one word (`--no-pager`, `--namespace=x`).
 */
const VALUED_BEFORE_VERB: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['git', new Set([...GIT_VALUED, '-c', '--config-env'])],
  ...['docker', 'podman', 'nerdctl'].map((name) => [name, CONTAINER_VALUED] as const),
  ...['kubectl', 'oc'].map((name) => [name, KUBECTL_VALUED] as const),
  ['helm', HELM_VALUED],
]);

/** The words from a program's verb on, its options before the verb left out; null when it has none. */
function fromVerb(valued: ReadonlySet<string>, args: readonly string[]): readonly string[] | null {
  let index = 0;
  // An expansion there (`git $OPTS push`) may be empty or hold options: it is read as one.
  while (index < args.length && /^[-$]/.test(args[index]!)) {
    index += valued.has(args[index]!) ? 2 : 1;
  }
  return index === 0 || index >= args.length ? null : args.slice(index);
}

/**
 * The texts a refusing `command-prefix:` rule reads of one simple command, words one space
 * apart: the command as read; with its program named by its name when a path named it
 * (`/usr/bin/git push` is `git push`); and, for git, the container engines, kubectl and
 * helm, with the options before the verb left out (`git -C dir push`, `kubectl -n prod
 * delete` are `git push`, `kubectl delete`). The shell runs the same program and verb in
 * each spelling, so a rule refusing `git push` binds them all; an option's value is never
 * read as the verb (`git -C push status` is `git status`).
 */
export function prefixReadings(segment: ClassifiedSegment): string[] {
  const readings = [segment.command];
  const [first, ...args] = wordsOfSegment(segment);
  if (first === undefined) return readings;
  const program = programName(first);
  if (program !== '' && program !== first.toLowerCase())
    readings.push([program, ...args].join(' '));
  const valued = VALUED_BEFORE_VERB.get(program);
  const verb = valued === undefined ? null : fromVerb(valued, args);
  if (verb !== null) readings.push([program, ...verb].join(' '));
  return readings;
}
