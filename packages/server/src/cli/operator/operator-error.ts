/**
 * A failure the operator reads as a line, then the `details` lines below it
 * (a file's problems, one a line); `status` is the exit code. Each line has
 * its control characters escaped on its own when shown, so a detail cannot
 * forge a line and the lines still read as lines.
 */
export class OperatorError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly details: readonly string[] = [],
  ) {
    super(message);
  }
}
