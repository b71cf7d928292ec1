import { MAX_CLASSIFIED_COMMAND_LENGTH, type SegmentsRead } from '../classify/action-tags.js';
import { prefixReadings } from '../classify/prefix-readings.js';
import { type ClassifiedSegment, classifyShellSegments } from '../classify/segment-walker.js';

/**
 * How `command-prefix:<text>` matches a call's shell commands.
 *
 * Spec 004 reads the literal beginning of the command, whitespace trimmed,
 * and an `allowed` rule does just that. A rule that refuses or asks
 * (`forbidden`, `must_not`, `requires_user`) also matches where the command
 * runs a simple command that begins with the text: after `;`, `&&`, `||`,
 * `|` or a newline, inside `sudo`, `bash -c`, `$(...)` and the other
 * wrappers the classifier reads, with quotes removed and words one space
 * apart, as the classifier reads them (`ls; git push`, `cd x && git push`,
 * `sudo git push`, `"git" push`), the program named by its path too
 * (`/usr/bin/git push`), and past the options before git's (or docker's,
 * kubectl's, helm's) verb (`git -C dir push`; see prefix-readings.ts). Otherwise a `must_not: command-prefix:git
 * push` would refuse `git push` and run `ls; git push`. A command too long
 * for the classifier to read matches such a rule when it holds the text
 * anywhere; so does each command read past that bound counted over the
 * call's commands together, as the call's tags are bounded (a call carrying
 * a hundred commands of 8 KB must not cost a hundred readings).
 */

/** A text lowercased with each run of whitespace as one space, as the classifier joins words. */
function spaced(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Whether a command begins with `prefix` (already lowercase), whitespace trimmed: the literal reading. */
export function commandStartsWith(command: string, prefix: string): boolean {
  return command.trim().toLowerCase().startsWith(prefix);
}

/**
 * The simple commands of one shell command, read once per call and kept for
 * every rule; given the segments the call's tags were read from
 * ({@link SimpleCommands.remember}), it does not read the command again.
 */
export class SimpleCommands {
  readonly #read = new Map<string, readonly string[] | null>();
  readonly #segments = new Map<string, readonly ClassifiedSegment[]>();
  /** Characters this call may still classify here (segments remembered cost nothing). */
  #budget = MAX_CLASSIFIED_COMMAND_LENGTH;

  /** Keeps the segments classified for a command (pass it as carriedTags's `read`). */
  readonly remember: SegmentsRead = (command, segments) => {
    this.#segments.set(command, segments);
  };

  /** Each simple command `command` runs, spaced, in each of its readings; null when it is too long to read. */
  of(command: string): readonly string[] | null {
    let read = this.#read.get(command);
    if (read === undefined) {
      const segments = this.#segments.get(command) ?? this.#classify(command);
      read =
        segments === null
          ? null
          : segments.flatMap((segment) => prefixReadings(segment).map(spaced));
      this.#read.set(command, read);
    }
    return read;
  }

  /** The segments of a command within the call's bound; null past it (matched as text). */
  #classify(command: string): readonly ClassifiedSegment[] | null {
    if (command.length > this.#budget) return null;
    this.#budget -= command.length;
    return classifyShellSegments(command);
  }

  /** Whether a refusing or asking rule's `prefix` (lowercase) matches `command`. */
  blockingMatch(command: string, prefix: string): boolean {
    if (commandStartsWith(command, prefix)) return true;
    const simple = this.of(command);
    const wanted = spaced(prefix);
    if (simple === null) return spaced(command).includes(wanted);
    return simple.some((text) => text.startsWith(wanted));
  }
}
