/** A process's own streams, or nothing: writing to one of these writes no file. */
export const STANDARD_STREAM = /^\/dev\/(null|stdout|stderr|tty|fd\/[0-9]+)$/;

/** Whether an output an option names (`-o VALUE`; `-` for standard output) writes no file. */
export function writesNoFile(target: string): boolean {
  return target === '-' || STANDARD_STREAM.test(target);
}

/** Whether a redirection's target writes no file: a stream, a descriptor (`>&2`) or `-` (`>&-`). */
export function redirectsNowhere(target: string): boolean {
  return /^[0-9]+$/.test(target) || writesNoFile(target);
}
