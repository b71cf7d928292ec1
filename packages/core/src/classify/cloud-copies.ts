import type { ActionTag } from './tags.js';

/** Long options of these copy verbs that take no value: the word after one is an operand. */
const NO_VALUE = new Set([
  ...['--recursive', '--dryrun', '--dry-run', '--quiet', '--delete', '--exact-timestamps'],
  ...['--size-only', '--no-progress', '--only-show-errors', '--follow-symlinks', '--progress'],
  ...['--no-follow-symlinks', '--no-clobber', '--checksums-only', '--continue-on-error'],
  ...['--delete-unmatched-destination-objects', '--no-guess-mime-type', '--verbose', '--update'],
  ...['--ignore-existing', '--checksum', '--create-empty-src-dirs', '--no-traverse', '--debug'],
  ...['--force-glacier-transfer', '--ignore-glacier-warnings', '--no-sign-request', '--resync'],
  ...['--no-verify-ssl', '--no-paginate', '--fast-list', '--copy-links', '--metadata'],
]);

/** A copy verb of each cloud CLI, after the word that opens it (`aws s3`, `gcloud storage`). */
const COPY_VERBS: Record<string, { readonly group?: string; readonly verbs: RegExp }> = {
  aws: { group: 's3', verbs: /^(cp|mv|sync)$/ },
  gsutil: { verbs: /^(cp|mv|rsync)$/ },
  gcloud: { group: 'storage', verbs: /^(cp|mv|rsync)$/ },
  rclone: { verbs: /^(copy|copyto|copyurl|sync|bisync|move|moveto)$/ },
};

/** A cloud location (`s3://`, `gs://`, an rclone `remote:path`), or standard output (`-`). */
function notLocal(word: string): boolean {
  return word === '-' || /^[a-z][a-z0-9+.-]*:\/\//i.test(word) || /^:?[\w. -]+:/.test(word);
}

/** gh verbs that write files here: clones, downloads, and checking out a pull request. */
const GH_WRITES = /^(repo clone|gist clone|release download|run download|pr checkout|co )/;

/**
 * A cloud CLI's copy whose destination (its last operand) is on this
 * machine writes it: `aws s3 cp s3://b/x ./x`, `aws s3 sync s3://b .`,
 * `gsutil cp gs://b/x .`, `rclone copy remote:b ./d` (`write`); and gh's
 * clones, downloads and `pr checkout`. A word after a long option that takes
 * a value (`--acl public-read`) is that value, not an operand.
 */
export function cloudCopyTags(
  program: string,
  args: readonly string[],
  tags: Set<ActionTag>,
): void {
  if (program === 'gh') {
    const words = args.filter((arg) => !arg.startsWith('-'));
    if (GH_WRITES.test(`${words.slice(0, 2).join(' ')} `)) tags.add('write');
    return;
  }
  const copy = COPY_VERBS[program];
  if (copy === undefined) return;
  const start = copy.group === undefined ? 0 : args.indexOf(copy.group) + 1;
  if (copy.group !== undefined && start === 0) return;
  const verb = args.findIndex((arg, index) => index >= start && copy.verbs.test(arg));
  if (verb < 0) return;
  const operands = args.slice(verb + 1).filter((arg, index, rest) => {
    const before = rest[index - 1] ?? '';
    const value = before.startsWith('--') && !before.includes('=') && !NO_VALUE.has(before);
    return !arg.startsWith('-') && !value;
  });
  const destination = operands.at(-1);
  if (operands.length >= 2 && destination !== undefined && !notLocal(destination)) {
    tags.add('write');
  }
}
