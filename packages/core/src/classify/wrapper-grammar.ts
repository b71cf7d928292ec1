/**
 * What the classifier knows of a wrapper's options, for the tables of
 * wrapper-grammars.ts and process-wrapper-grammars.ts.
 */
import type { ActionTag } from './tags.js';

/** The options of a wrapper: those that take a value, and where its command starts. */
export interface WrapperGrammar {
  /** Options taking a value (short letters or long names). */
  readonly valued: readonly string[];
  /**
   * Options taking no value. An option in none of the lists may take one,
   * so the command may start a word later than the classifier reads: the
   * line is then unknown. Left out for a wrapper whose long options always
   * attach their value (`firejail --net=none`), which only lists short ones.
   */
  readonly flags?: readonly string[];
  /** Long options never take a separate value (`valgrind --tool=memcheck`). */
  readonly attachedLongValues?: boolean;
  /** Operands before the command (timeout's duration). */
  readonly leadingOperands?: number;
  /** What the wrapper does when given no command. */
  readonly alone: 'read' | 'unknown';
  /** Options that make it run no command at all (`sudo -l`, `command -v`). */
  readonly lookupOnly?: readonly string[];
  /** Options that run nothing when no command follows (`sudo -k`), but run one that does. */
  readonly idle?: readonly string[];
  /** Valued options naming a file it writes (`strace -o FILE`). */
  readonly outputs?: readonly string[];
  /** Valued options (listed in `valued` too) whose value is a command line it runs (`perf stat --pre CMD`): read, and `unknown`. */
  readonly runsCode?: readonly string[];
  /** Tags of the wrapper itself, whatever it runs (`systemd-run` acts on the service manager). */
  readonly tags?: readonly ActionTag[];
}
