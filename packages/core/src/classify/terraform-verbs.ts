import type { ActionTag } from './tags.js';

/** Go's spellings of a boolean flag set false (`-write=false`, `--write=0`). */
const GO_FALSE = /^(false|0|f)$/i;

/** The value of a Go boolean flag among `args` (`-check`, `--check=true`), or undefined when absent. */
function goBoolean(args: readonly string[], name: string): boolean | undefined {
  let value: boolean | undefined;
  for (const arg of args) {
    const match = /^--?([^=]+)(?:=(.*))?$/s.exec(arg);
    if (match?.[1] !== name) continue;
    value = match[2] === undefined || !GO_FALSE.test(match[2]);
  }
  return value;
}

/**
 * The verbs of terraform and OpenTofu that act on the workspace rather than
 * on the infrastructure, read after `external` was added: `fmt` rewrites the
 * configuration files in place (`write` alone; `-check` or `-write=false`
 * only read them), and `init` and `get` download providers and modules from
 * their registries into `.terraform` (`install_local`, `network`, `write`).
 */
export function terraformTags(args: readonly string[], tags: Set<ActionTag>): void {
  const verb = args.find((arg) => !arg.startsWith('-'));
  if (verb === 'fmt') {
    tags.delete('external');
    const rest = args.slice(args.indexOf(verb) + 1);
    const onlyReads = goBoolean(rest, 'check') === true || goBoolean(rest, 'write') === false;
    tags.add(onlyReads ? 'read' : 'write');
  } else if (verb === 'init' || verb === 'get') {
    for (const tag of ['install_local', 'network', 'write'] as const) tags.add(tag);
  }
}
