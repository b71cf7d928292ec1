/**
 * The calls of a hooked session as its agent presents them, and the
 * principal that claims and commits their rows: shared by the files that
 * plant, bind and record them, so none of them imports another for a shape.
 */

/** A call of a hooked session, as its agent reported it. */
export interface HookedCall {
  toolName: string;
  toolInput: unknown;
  toolUseId: string | null;
  /**
   * On a pre_tool: the agent's working directory for the call, which the
   * stage reads its relative paths from (undefined: the project root).
   */
  workingDirectory?: string | undefined;
}

/** What the agent says ran. */
export interface RanCall extends HookedCall {
  outcome: 'succeeded' | 'failed';
  output: string;
  answeredByUser: boolean;
}

/** Who claims and commits the rows of a hooked session: the agent runs its calls itself. */
export function hookedPrincipal(agent: string): string {
  return `hooks:${agent}`;
}
