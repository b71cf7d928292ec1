/** A failure the operator reads as one line; `status` is the exit code. */
export class OperatorError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}
