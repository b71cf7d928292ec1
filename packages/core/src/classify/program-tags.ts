import { archiveReadTags } from './archive-reads.js';
import { awkTags } from './awk-program.js';
import { cloudCopyTags } from './cloud-copies.js';
import { cloudDeleteTags } from './cloud-deletes.js';
import { containerTags } from './container-verbs.js';
import { contentWriteTags } from './content-writes.js';
import { transferTags } from './file-transfers.js';
import { hasFlag } from './flags.js';
import { helmTags } from './helm-verbs.js';
import { kubectlConfigTags } from './kubectl-config.js';
import { outputTags } from './output-files.js';
import { installsPackages, publishesPackages, withdrawsPackages } from './package-managers.js';
import { pluginTags } from './plugin-verbs.js';
import type { ActionTag } from './tags.js';
import { tarListTags } from './tar-listing.js';
import { terraformTags } from './terraform-verbs.js';

const READ = new Set(
  [
    ...['ls', 'cat', 'head', 'tail', 'less', 'more', 'grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack'],
    ...['wc', 'stat', 'file', 'du', 'df', 'pwd', 'echo', 'printf', 'which', 'whereis', 'tree'],
    ...['diff', 'awk', 'gawk', 'sort', 'uniq', 'jq', 'yq', 'cut', 'tr', 'basename', 'dirname'],
    ...['realpath', 'readlink', 'whoami', 'date', 'true', 'false', 'test', '[', '[[', 'cd'],
    ...['pushd', 'popd', 'id', 'uname', 'ps', 'printenv', 'type', 'sha256sum', 'sha1sum'],
    ...['md5sum', 'cmp', 'column', 'nl', 'xxd', 'od', 'hexdump', 'strings', 'fd', 'fzf', 'bat'],
    ...['fdfind'],
    ...['hostname', 'uptime', 'free', 'top', 'htop', 'lsof', 'locate', 'man', 'help', 'tac'],
    ...['base64', 'export', 'set', 'unset', 'shopt', 'read', 'sleep', 'wait', 'exit', 'return'],
    ...['local', 'declare', 'typeset', 'alias', 'history', 'jobs', 'seq', 'yes', 'paste', 'join'],
    ...['comm', 'expr', 'bc', 'tput', 'stty', 'clear', 'getconf', 'nproc', 'lscpu', 'env'],
    ...['trap', 'shift', 'break', 'continue', 'hash', 'umask', 'ulimit', 'getopts', ':', 'fold'],
    ...['rev', 'look', 'zcat', 'zgrep', 'bzcat', 'xzcat', 'tsc', 'eslint', 'tokei', 'cloc'],
    ...['view', 'atq', 'disown', 'mapfile', 'readarray', 'zipinfo'],
  ].map((name) => name.toLowerCase()),
);
const WRITE = new Set([
  ...['touch', 'mkdir', 'cp', 'mv', 'tee', 'chmod', 'chown', 'chgrp', 'ln', 'install', 'patch'],
  ...['tar', 'unzip', 'zip', 'gzip', 'gunzip', 'bzip2', 'xz', 'unxz', '7z', 'split', 'mkfifo'],
  ...['mktemp', 'sponge', 'prettier', 'black', 'gofmt', 'rustfmt', 'biome'],
  ...['zstd', 'pigz', 'lz4', 'brotli', 'mkdirp', 'copyfiles', 'cpy', 'ncp', 'cpx'],
  ...['vi', 'vim', 'nvim', 'gvim', 'vimdiff', 'nvi', 'evim', 'ex', 'emacs', 'emacsclient', 'nano'],
  ...['pico', 'micro', 'hx', 'helix', 'joe', 'mcedit', 'kak'],
]);
const DELETE = new Set([
  ...['rm', 'rmdir', 'unlink', 'shred', 'srm', 'trash', 'trash-put'],
  // npm packages' programs, often run through npx: rimraf and del remove trees as `rm -rf` does.
  ...['rimraf', 'del', 'del-cli'],
]);
const DESTRUCTIVE = new Set([
  ...['shred', 'wipefs', 'fdisk', 'sfdisk', 'parted', 'mkswap', 'rimraf', 'del', 'del-cli'],
]);
const NETWORK = new Set([
  ...['curl', 'wget', 'ssh', 'scp', 'sftp', 'rsync', 'nc', 'ncat', 'netcat', 'socat', 'telnet'],
  ...['ftp', 'http', 'https', 'xh', 'ping', 'dig', 'nslookup', 'host', 'aria2c', 'mosh'],
  ...['git-lfs', 'gsutil', 'rclone', 'openssl', 'nmap', 'traceroute'],
]);
const EXTERNAL = new Set([
  ...['kubectl', 'terraform', 'tofu', 'helm', 'aws', 'gcloud', 'az', 'docker', 'podman', 'gh'],
  ...['glab', 'heroku', 'fly', 'flyctl', 'vercel', 'netlify', 'ansible', 'ansible-playbook'],
  ...['pulumi', 'psql', 'mysql', 'mongosh', 'redis-cli', 'sqlcmd', 'wrangler', 'firebase'],
  ...['doctl', 'oc', 'eksctl', 'serverless', 'sls', 'stripe', 'sendmail', 'mail', 'mutt'],
  ...['systemctl', 'launchctl', 'service', 'crontab', 'gsutil', 'rclone', 'nerdctl', 'at'],
  ...['batch', 'atrm', 'systemd-run'],
]);
/** Every program the tables above name, for matching a glob in a program name against. */
export const TABLE_PROGRAMS: readonly string[] = [
  ...new Set([...READ, ...WRITE, ...DELETE, ...DESTRUCTIVE, ...NETWORK, ...EXTERNAL]),
];

/** Verbs of external CLIs that remove or destroy what they address. */
const EXTERNAL_DELETE = new Set([
  ...['delete', 'destroy', 'rm', 'rmi', 'remove', 'prune', 'purge', 'drop', 'uninstall'],
]);

const SQL_CLIENTS = new Set(['psql', 'mysql', 'sqlite3', 'sqlcmd', 'mongosh', 'redis-cli']);
const DESTRUCTIVE_SQL = /\b(drop|truncate|delete\s+from|flushall|flushdb|dropdatabase)\b/i;

function curlSends(program: string, args: readonly string[]): boolean {
  if (program === 'wget') return args.some((arg) => /^--(post|body|method)/.test(arg));
  if (program !== 'curl' && program !== 'http' && program !== 'https' && program !== 'xh') {
    return false;
  }
  const method = args.findIndex((arg) => arg === '-X' || arg === '--request');
  const verb =
    method >= 0 ? args[method + 1]?.toUpperCase() : args.find((a) => /^-X[A-Z]/.test(a))?.slice(2);
  if (verb && verb !== 'GET' && verb !== 'HEAD') return true;
  if (program !== 'curl') return args.some((arg) => /^(POST|PUT|PATCH|DELETE)$/i.test(arg));
  return args.some((arg) => /^(-d|-F|-T|--data.*|--form.*|--upload-file|--json)$/.test(arg));
}

function deleteTags(program: string, args: readonly string[], tags: Set<ActionTag>): void {
  tags.add('delete');
  if (DESTRUCTIVE.has(program) || hasFlag(args, '-r', '-R', '-f', '--recursive', '--force')) {
    tags.add('destructive');
  }
  if (program === 'rmdir') tags.delete('destructive');
}

const NETWORKED_EXTERNAL = new Set([
  ...['gh', 'glab', 'aws', 'gcloud', 'az', 'heroku', 'vercel', 'netlify'],
]);
const CONTAINERS = new Set(['docker', 'podman', 'nerdctl']);

/** `crontab`: `-l` reads; `-r` removes every entry; a table (a file or `-`) replaces them all. */
function crontabTags(args: readonly string[], tags: Set<ActionTag>): void {
  if (hasFlag(args, '-r')) {
    tags.add('delete');
    tags.add('destructive');
  } else if (hasFlag(args, '-e')) tags.add('write');
  else if (hasFlag(args, '-l')) tags.add('read');
  else {
    tags.add('write');
    tags.add('destructive');
  }
}

/** Tags of a CLI that acts on a system beyond the workspace (clouds, clusters, services). */
function externalTags(program: string, args: readonly string[], tags: Set<ActionTag>): void {
  tags.add('external');
  if (args.some((arg) => EXTERNAL_DELETE.has(arg.toLowerCase()))) {
    tags.add('delete');
    tags.add('destructive');
  }
  cloudDeleteTags(program, args, tags);
  cloudCopyTags(program, args, tags);
  if (NETWORKED_EXTERNAL.has(program)) {
    tags.add('network');
  }
  if (program === 'gh' && args[0] === 'release' && args[1] === 'create') tags.add('publish');
  if (program === 'gh') pluginTags(program, args, tags);
  if (CONTAINERS.has(program)) containerTags(program, args, tags);
  // `kubectl exec POD -- CMD` (and run, debug, attach) runs a command in the cluster, not read
  // here; `kubectl cp` writes its destination, on this machine or in the pod.
  if (program === 'kubectl' || program === 'oc') {
    pluginTags(program, args, tags);
    if (args.some((arg) => /^(exec|run|debug|attach)$/.test(arg))) tags.add('unknown');
    if (args.includes('cp')) tags.add('write');
  }
  if (program === 'kubectl' || program === 'oc') kubectlConfigTags(args, tags);
  if (program === 'crontab') crontabTags(args, tags);
  if (program === 'terraform' || program === 'tofu') terraformTags(args, tags);
  if (program === 'helm') helmTags(args, tags);
  if (program === 'atrm') tags.add('delete');
}

/**
 * The tags of one simple command from its program (basename, lowercase) and
 * literal arguments, with no nesting: wrappers, interpreters and `-exec`
 * are read by the segment walker first. Empty when the program is unknown.
 */
export function programTags(program: string, args: readonly string[]): Set<ActionTag> {
  const tags = new Set<ActionTag>();
  if (installsPackages(program, args)) {
    tags.add('install_local');
    tags.add('network');
  }
  if (publishesPackages(program, args)) {
    tags.add('publish');
    tags.add('network');
  }
  if (withdrawsPackages(program, args)) {
    tags.add('delete');
    tags.add('destructive');
  }
  if (program === 'git') return tags;
  if (contentWriteTags(program, args, tags)) {
    // dd, truncate, sed, cp: tagged by what they do to a file's content.
  } else if (/^(g|bsd)?tar$/.test(program) && tarListTags(args, tags)) {
    // `tar -t` lists an archive: read, over a remote shell for `HOST:FILE`.
  } else if (archiveReadTags(program, args, tags)) {
    // `gzip -l`, `unzip -t`, `7z l`: an archive read, nothing written.
  } else if (DELETE.has(program)) deleteTags(program, args, tags);
  else if (DESTRUCTIVE.has(program) || program.startsWith('mkfs')) tags.add('destructive');
  else if (READ.has(program)) tags.add('read');
  else if (WRITE.has(program)) tags.add('write');
  else if (program === 'perl' || program === 'ruby') {
    if (args.some((arg) => /^-[a-zA-Z]*i/.test(arg) || arg.startsWith('--in-place'))) {
      tags.add('write');
    }
  } else if (NETWORK.has(program) && !transferTags(program, args, tags)) tags.add('network');
  if (EXTERNAL.has(program)) externalTags(program, args, tags);
  if (curlSends(program, args)) tags.add('external');
  if (SQL_CLIENTS.has(program) && args.some((arg) => DESTRUCTIVE_SQL.test(arg))) {
    tags.add('delete');
    tags.add('destructive');
  }
  // awk and netcat can start other programs: what they run is not read.
  if (program.endsWith('awk')) awkTags(args, tags);
  if (/^(nc|ncat|netcat)$/.test(program) && hasFlag(args, '-e', '-c', '--exec', '--sh-exec')) {
    tags.add('unknown');
  }
  // `hash -p PATH NAME` makes NAME run PATH for the rest of the shell: later names are not what they say.
  if (program === 'hash' && hasFlag(args, '-p')) tags.add('unknown');
  if (program === 'chmod' && hasFlag(args, '-R', '--recursive')) {
    tags.add('destructive');
  }
  // rsync's `--del` is `--delete-during`; `--remove-source-files` deletes what it sent.
  if (program === 'rsync' && args.some((arg) => arg === '--del' || arg.startsWith('--delete'))) {
    tags.add('delete');
    tags.add('destructive');
  }
  if (program === 'rsync' && args.some((arg) => /^--remove-(source|sent)-files$/.test(arg))) {
    tags.add('delete');
  }
  if (/^(g|bsd)?tar$/.test(program) && hasFlag(args, '--remove-files')) tags.add('delete');
  // `zip -m` and `7z a -sdel` delete the files they put in the archive.
  if (program === 'zip' && hasFlag(args, '-m', '--move')) tags.add('delete');
  if (/^7z[ar]?$/.test(program) && args.includes('-sdel')) tags.add('delete');
  if (program === 'mv' && args.at(-1) === '/dev/null') tags.add('delete');
  // `ln -f` removes an existing destination first (`ln -sf /dev/null FILE` drops FILE's content).
  if (program === 'ln' && hasFlag(args, '-f', '--force') && !hasFlag(args, '-b', '--backup')) {
    tags.add('delete');
  }
  outputTags(program, args, tags);
  return tags;
}
