/**
 * Whether `arg` names the long option `flag`: exactly, or (as GNU getopt_long
 * and git's parse-options accept) as a prefix of it, so `rm --rec` and
 * `git reset --har` read as `--recursive` and `--hard`. A prefix that is
 * ambiguous for the program makes it refuse to run, so counting it costs nothing.
 */
export function namesLongOption(arg: string, flag: string): boolean {
  if (!flag.startsWith('--') || !arg.startsWith('--')) return false;
  const name = arg.split('=')[0]!;
  return name.length > 2 && flag.startsWith(name);
}

/**
 * True when a short flag cluster or a long option among `args` is one of
 * `flags`; a long option may be abbreviated ({@link namesLongOption}).
 */
export function hasFlag(args: readonly string[], ...flags: string[]): boolean {
  return args.some(
    (arg) =>
      flags.includes(arg) ||
      (/^-[a-zA-Z]+$/.test(arg) &&
        flags.some((flag) => flag.length === 2 && flag[0] === '-' && arg.includes(flag[1]!))) ||
      flags.some((flag) => namesLongOption(arg, flag)),
  );
}

/**
 * The values of `--name=value`, `--name value` (the name abbreviated or not),
 * and of a short option `-x`
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
      // A long option may be abbreviated (`--to-comman=CMD`, `--use-compress-prog CMD`).
      if (!names.some((name) => namesLongOption(arg, name))) continue;
      values.push(arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : (args[++index] ?? ''));
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
