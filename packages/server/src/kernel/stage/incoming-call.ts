/** A tool call arriving at the approval stage. */
export interface IncomingCall {
  origin: 'model' | 'author' | 'kernel';
  toolName: string;
  toolInput: unknown;
  toolCallId: string | null;
  onFailure: 'continue' | 'hold';
  round: number;
  principal: string | null;
  /** `hook` or `summary` for rows the kernel plants for its own steps; default `tool`. */
  kind?: 'tool' | 'hook' | 'summary' | undefined;
  /** The `event:source` of a hook row (unique in its run). */
  hookSource?: string | undefined;
  /** For a question authored through the tasks door: the hash of its resolution token. */
  resolutionTokenHash?: string | undefined;
  /** A deadline armed when the row becomes runnable (a hook's `timeout_ms`). */
  runnableDeadlineMs?: number | undefined;
  /**
   * A hooked agent's working directory for the call (its `cwd`): the
   * permissions layer and the guardrails read relative paths and shell words
   * from it. Undefined reads them from the project root.
   */
  workingDirectory?: string | undefined;
}
