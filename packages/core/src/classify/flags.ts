/** True when a short flag cluster or a long option among `args` is one of `flags`. */
export function hasFlag(args: readonly string[], ...flags: string[]): boolean {
  return args.some(
    (arg) =>
      flags.includes(arg) ||
      (/^-[a-zA-Z]+$/.test(arg) &&
        flags.some((flag) => flag.length === 2 && flag[0] === '-' && arg.includes(flag[1]!))),
  );
}

/**
 * The values of `--name=value`, `--name value`, and of a short option `-x`
 * given as `-x value`, `-xvalue` or inside a cluster (`-avze value`,
 * `-vvoValue`): letters before it are read as flags.
 */
export function optionValues(args: readonly string[], names: readonly string[]): string[] {
  const values: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--') break;
    if (names.includes(arg)) values.push(args[++index] ?? '');
    else if (arg.startsWith('--')) {
      if (names.includes(arg.split('=')[0]!)) values.push(arg.slice(arg.indexOf('=') + 1));
    } else if (/^-[a-zA-Z]/.test(arg)) {
      for (let at = 1; at < arg.length; at++) {
        if (!names.includes(`-${arg[at]}`)) continue;
        values.push(at + 1 < arg.length ? arg.slice(at + 1) : (args[++index] ?? ''));
        break;
      }
    }
  }
  return values.filter((value) => value !== '');
}
