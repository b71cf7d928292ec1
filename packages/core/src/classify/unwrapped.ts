import { type ActionTag, UNREAD_COMMAND_TAGS } from './tags.js';

/**
 * What a wrapper runs: the words from index `from` on (indices into the same
 * array, so stripping many wrappers copies nothing), a command line to read,
 * or no command at all.
 */
export type Unwrapped =
  | {
      readonly kind: 'words';
      readonly from: number;
      readonly write?: boolean;
      /** Tags of the wrapper itself (`systemd-run` acts on the service manager). */
      readonly tags?: readonly ActionTag[];
      /** Command lines the wrapper's options run besides its command (`perf stat --pre CMD`). */
      readonly lines?: readonly string[];
      /** The wrapper adds words read from its input to the command (`xargs`). */
      readonly appendsInput?: true;
      /** The wrapper puts what it reads in place of this string in the command's words (`xargs -I{}`). */
      readonly replacement?: string;
      /**
       * The first word names a program of a fetched package (`npx create-vite`):
       * `install_local` already says what runs, so an unknown name adds no `unknown`.
       */
      readonly runsPackage?: true;
    }
  | {
      readonly kind: 'line';
      readonly line: string;
      readonly dynamic: boolean;
      /** Why the line is not all there (`parallel ::::` reads commands from a file). */
      readonly note?: string;
      /** Tags of the wrapper itself (`npx -c` fetches packages). */
      readonly tags?: readonly ActionTag[];
    }
  | { readonly kind: 'no_command'; readonly tag: 'read' | 'unknown' };

/**
 * The tags a wrapper's command carries when its start is uncertain: an
 * option the wrapper does not list may take the next word as its value
 * (`sudo --new-opt ls rm -rf x` may run `rm`), so what runs is not read and
 * carries every tag but `read`; a word bash splits among its options
 * (`nice -n$N ls`) may carry another command, which is `unknown`.
 */
export function uncertainStart(
  unknownOption: boolean,
  splits: boolean,
): { readonly tags?: readonly ActionTag[] } {
  if (unknownOption) return { tags: UNREAD_COMMAND_TAGS };
  return splits ? { tags: ['unknown'] } : {};
}
