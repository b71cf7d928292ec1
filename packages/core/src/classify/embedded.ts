/** A command line that another command runs, now, later or elsewhere. */
export interface EmbeddedLine {
  readonly line: string;
  /** What it was found in, for the segment's `via` (`trap`, `git config alias.x`). */
  readonly via: string;
}

/**
 * What a command's arguments make something else run: command lines to
 * classify, and a note when some of it cannot be read (the command is then
 * `unknown`).
 */
export interface EmbeddedCommands {
  readonly lines: EmbeddedLine[];
  unknown?: string;
}

/** An empty collection of embedded commands. */
export function noEmbedded(): EmbeddedCommands {
  return { lines: [] };
}
