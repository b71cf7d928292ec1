/**
 * Whether a command may draw progress: only when standard error is a
 * terminal and not in CI, so logs and pipes stay exactly the report.
 */
export function progressAllowed(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && env.CI !== 'true' && env.CI !== '1';
}
