/** True when a short flag cluster or a long option among `args` is one of `flags`. */
export function hasFlag(args: readonly string[], ...flags: string[]): boolean {
  return args.some(
    (arg) =>
      flags.includes(arg) ||
      (/^-[a-zA-Z]+$/.test(arg) &&
        flags.some((flag) => flag.length === 2 && flag[0] === '-' && arg.includes(flag[1]!))),
  );
}
