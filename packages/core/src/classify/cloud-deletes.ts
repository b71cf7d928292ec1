import { hasFlag } from './flags.js';
import type { ActionTag } from './tags.js';

/**
 * Operations of cloud CLIs spelled as one hyphenated word that remove what
 * they name: `aws s3api delete-bucket`, `aws ec2 terminate-instances`,
 * `aws ecr batch-delete-image`, `az storage blob delete-batch`,
 * `gcloud projects remove-iam-policy-binding`.
 */
const REMOVING_OPERATION =
  /^((batch-)?(delete|remove|terminate|purge|destroy|deregister)-[a-z0-9-]+|[a-z0-9-]+-delete)$/;

/** Words that remove a bucket or objects wherever they stand: `aws s3 rb`, `gsutil rb`, `rclone deletefile`. */
const REMOVING_WORDS = new Set(['rb', 'deletefile', 'rmdirs', 'cleanup', 'dedupe']);

/**
 * Verbs that remove files the command does not name: rclone's `sync` and
 * `bisync` delete what the destination holds beyond the source, and its
 * `move` and `moveto` delete the source once copied.
 */
const RCLONE_REMOVING = new Map<string, readonly ActionTag[]>([
  ['sync', ['delete', 'destructive']],
  ['bisync', ['delete', 'destructive']],
  ['move', ['delete']],
  ['moveto', ['delete']],
]);

/** The first word that is no option: rclone's verb (its global options given with `=`). */
function firstOperand(args: readonly string[]): string | undefined {
  return args.find((arg) => !arg.startsWith('-'))?.toLowerCase();
}

/**
 * A sync that mirrors its source removes what the destination holds beyond
 * it: `aws s3 sync --delete`, `gsutil rsync -d` (also in a cluster, `-rd`),
 * `gcloud storage rsync --delete-unmatched-destination-objects`.
 */
function mirrors(program: string, args: readonly string[]): boolean {
  const words = args.map((arg) => arg.toLowerCase());
  if (program === 'aws') return words.includes('sync') && hasFlag(args, '--delete');
  if (program === 'gsutil') return words.includes('rsync') && hasFlag(args, '-d');
  if (program === 'gcloud') {
    return words.includes('rsync') && hasFlag(args, '--delete-unmatched-destination-objects');
  }
  return false;
}

/**
 * Adds `delete` (and `destructive` where what is removed is not named or
 * comes back from nowhere) for a cloud CLI's removing operations beyond the
 * plain verbs (`delete`, `rm`...) every external CLI is read for: hyphenated
 * operations, bucket removal, mirroring syncs, and rclone's removing verbs.
 */
export function cloudDeleteTags(
  program: string,
  args: readonly string[],
  tags: Set<ActionTag>,
): void {
  const removing =
    mirrors(program, args) ||
    args.some((arg) => {
      const word = arg.toLowerCase();
      return !word.startsWith('-') && (REMOVING_OPERATION.test(word) || REMOVING_WORDS.has(word));
    });
  const rclone = program === 'rclone' ? RCLONE_REMOVING.get(firstOperand(args) ?? '') : undefined;
  for (const tag of removing ? (['delete', 'destructive'] as const) : (rclone ?? [])) tags.add(tag);
}
