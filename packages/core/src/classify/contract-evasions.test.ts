import { describe, expect, it } from 'vitest';
import { evaluateActionContract } from '../contracts/evaluate-contract.js';
import { validateActionContract } from '../contracts/validate-contract.js';

/** The contract issue 24 was evaded with, without and with `requires_user: [action:unknown]`. */
function contract(asksUnknown: boolean) {
  const validated = validateActionContract({
    contract_version: 1,
    authorization: {
      forbidden: ['action:destructive', 'action:delete', 'action:publish'],
      ...(asksUnknown ? { requires_user: ['action:unknown'] } : {}),
    },
    must_and_must_not: { must_not: ['command-prefix:git push'] },
  });
  if (!validated.ok) throw new Error('the contract does not validate');
  return validated.value;
}

const verdict = (asksUnknown: boolean, toolInput: unknown) =>
  evaluateActionContract(contract(asksUnknown), { toolName: 'bash', toolInput })?.verdict ?? 'none';

/** Evasions the forbidden list alone must refuse: the classifier reads a forbidden tag in each. */
const REFUSED = [
  'cat <<EOF\n$(rm -rf ~/x)\nEOF',
  'cat <<-EOF\n\t`rm -rf ~/x`\n\tEOF',
  "trap 'rm -rf ~' EXIT",
  "git -c alias.x='!rm -rf ~' x",
  "git -c alias.up='push --force' up",
  "git -c core.sshCommand='rm -rf ~' fetch",
  "git config --global alias.st '!rm -rf ~'",
  'git config --global user.email x@example.com',
  "ssh -o ProxyCommand='rm -rf ~' host",
  "tar --to-command='rm -rf ~' -xf a.tar",
  'rsync -e \'sh -c "rm -rf ~"\' src/ host:/srv/',
  'find . -okdir rm -rf {} \\;',
  'ls | xargs rm -rf',
  "watch -n 5 'rm -rf build'",
  'parallel rm ::: -rf build',
  "vim -c '!rm -rf build' file.txt",
  "GIT_SSH_COMMAND='rm -rf ~' git fetch",
  ': > app.log',
  '> app.log',
  'cp /dev/null app.log',
  'truncate -s 0 app.log',
  "sed -i '/secret/d' config.env",
  'find . -fprint important.txt',
  'dd if=/dev/zero of=important.txt bs=1 count=0',
  'git worktree remove --force ../wt',
  'docker rmi -f $(docker images -q)',
  'docker push registry.example.com/app:1',
  'docker pull ubuntu:latest',
  'echo "$TOKEN" | docker login --password-stdin ghcr.io',
  'podman logout quay.io',
  'crontab -r',
  // Forms bash 5.2 runs as a deletion that the lexer once read as `echo` or `find` alone.
  "find . -maxdepth 0 {-exec,sh,-c,'rm -rf victim',\\;}",
  'find . -name {victim,-delete}',
  "echo `echo \\'; rm -rf victim; echo \\'`",
  '<<<x\recho rm -rf victim',
  'echo hi \r# ; rm -rf victim',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'echo ${x:-<(rm -rf victim)}',
  'cat <<EOF\nEO\\\nF\nrm -rf victim\nEOF',
  'cat <<EOF\r\nhi\nEOF\r\nrm -rf victim\nEOF',
  'set -- a; for x do rm -rf victim; done',
  "find . -name victim $'-delete\\0'",
  'find . -name victim $"-delete"',
  // A package manager's execution verb runs its command; it was read as an install alone.
  "npx -c 'rm -rf victim'",
  'uv run rm -rf victim',
  'npm exec --call="rm -rf victim"',
  // env sets any word holding `=`; one that is no shell name hid the command after it.
  "env 'BASH_FUNC_ls%%=() { rm -rf victim; }' bash -c ls",
  'env a-b=c rm -rf victim',
  // Arithmetic read where bash reads a subshell, or a shift read as a here-document.
  'echo $((ls) ; (rm -rf victim))',
  '(( x = 1 << 2 ))\nrm -rf victim',
  'echo $[1<<2]\nrm -rf victim',
  // A pager's initial command and a database client's shell escape run here.
  "less '+!rm -rf victim' notes.txt",
  "psql -c '\\! rm -rf victim'",
  // npm packages' programs that delete, or wrappers that run the command after them.
  'npx rimraf victim',
  'npx cross-env A=1 rm -rf victim',
  // A `}` quoted inside ${...} ended it early, so the rest of the line read as one quoted string.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  "echo ${x:-'}'}; rm -rf victim",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  "echo \"${x-'}\" '}\"; rm -rf victim; echo ' '",
  // bash and sh drop a NUL from the input they read: `r\0m` fed to them runs rm.
  'r\0m -rf victim',
  'echo "\0"; r\0m -rf victim',
  // zsh runs `=rm` as the path of rm (its EQUALS expansion).
  '=rm -rf victim',
  // bash's \u takes four hex digits at most: `$'\u0064d'` runs dd.
  "$'\\u0064d' if=/dev/zero of=important.txt bs=1 count=0",
  // An archiver told to move the files in deletes them (bash 5.2 ran zip -m: victim was gone).
  'zip -m a.zip victim',
  'zip -rm a.zip victim',
  '7z a -sdel a.7z victim',
  // Objects no ref or reflog reaches are deleted (bash 5.2: a dropped stash fsck listed was gone).
  'git gc --prune=now',
  'git gc --aggressive --prune=all',
  'git -c gc.pruneExpire=now gc',
  'git prune',
  'git prune --expire=now',
  'git repack -a -d',
  'git repack -adf',
  // A program the line names through a variable it sets (bash 5.2 ran rm: victim was gone).
  'v=rm; $v -rf victim',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'v=rm; ${v} -rf victim',
  'v=rm; "$v" -rf victim',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'a=(rm -rf); "${a[@]}" victim',
  'for p in rm; do $p victim; done',
  'export v=rm; $v victim',
  // A literal default runs when the variable is unset (bash 5.2 ran rm: victim was gone).
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  '${X:-rm} victim',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  '${X=rm} -rf victim',
  // A program word built of a known variable's value (bash 5.2 ran rm: victim was gone).
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'c=RM; ${c,,} victim',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'c=Rm; ${c,} victim',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'c=RM; ${c@L} victim',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'c=xm; ${c/x/r} victim',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'c=xrm; ${c#x} victim',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'c=xxrm; ${c##*x} victim',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'c=rmx; ${c%x} victim',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'c=xrmx; ${c:1:2} victim',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'c=r; ${c}m victim',
  "c=r; $c'm' victim",
  'c=m; r$c victim',
  'c=r; c+=m; $c victim',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'x=([0]=rm [1]=victim); ${x[@]}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'g=f; f=rm; ${!g} victim',
  // A program a builtin sets from literal words (bash 5.2 ran rm: victim was gone).
  'set -- rm victim; "$@"',
  'set rm victim; "$@"',
  'set -- x rm; $2 victim',
  'read c <<< rm; $c victim',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'read -a a <<< \'rm victim\'; "${a[@]}"',
  'printf -v c rm; $c victim',
  // A subscript's command, run where bash evaluates the word (bash 5.2: victim was gone).
  "[[ 'a[$(rm victim)]' -eq 1 ]]",
  "let 'a[$(rm victim)]'",
  "printf -v 'a[$(rm victim)]' x",
  "test -v 'a[`rm victim`]'",
  "x='a[$(rm victim)]'; echo $((x))",
  // An awk program's literal command (bash 5.2 ran awk's system(): victim was gone).
  'awk \'BEGIN { system("rm -rf victim") }\'',
  'awk \'BEGIN { system("rm -rf " "victim") }\'',
  'gawk \'BEGIN { "rm -rf victim" | getline x }\'',
  'awk \'{ print | "rm -rf victim" }\' notes.txt',
  // sed's e command runs the command after it (bash 5.2 ran it: victim was gone).
  "sed 'e rm -rf victim' notes.txt",
  "sed -n -e p -e '1e rm -rf victim' notes.txt",
  // Emptied before it is written, and nothing written (bash 5.2 left victim 0 bytes long).
  'tee victim < /dev/null',
  'sort -o victim /dev/null',
  'sort --output=victim < /dev/null',
  // The shell empties the file a filter then reads (bash 5.2 left victim 0 bytes long).
  'sort victim > victim',
  'cat victim > victim',
  'sed s/a/b/ ./victim > victim',
  'head -n 5 victim &> victim',
  // A pipe from a command printing nothing empties it too (bash 5.2 left victim 0 bytes long).
  ': | tee victim',
  "printf '' | tee victim",
  'false |& tee victim',
  ': | sponge victim',
  // What a command prints goes to its file, not the pipe (bash 5.2 left victim 0 bytes long).
  'echo hi > out.txt | tee victim',
  'env echo hi >> out.txt | tee victim',
  'sudo > out.txt | sponge victim',
  // bash expands a start-up file's name and a prompt where it reads them (bash 5.2: victim was gone).
  "BASH_ENV='$(rm victim)' bash -c true",
  "env BASH_ENV='`rm victim`' bash -c true",
  "export BASH_ENV='$(rm victim)'; bash -c true",
  "BASH_ENV='$((1))$(rm victim)' bash -c true",
  "ENV='$(rm victim)' sh -i",
  "PS4='$(rm victim)'; set -x; true",
  "PS0='$(rm victim)' bash -i <<< true",
  // A variable given what echo or printf prints (bash 5.2 ran rm: victim was gone).
  'c=$(echo rm); $c victim',
  'c="$(echo rm)"; $c victim',
  'c=`echo rm`; $c victim',
  'c=$(printf rm); $c victim',
  "c=$(printf '%s' rm); $c victim",
  'c=$(echo -n rm); $c victim',
  'c=$(echo rm victim); $c',
  // A value split at the characters the line gives IFS (bash 5.2 ran rm: victim was gone).
  'IFS=,; c=rm,victim; $c',
  "IFS=$'\\x2c'; c=rm,victim; $c",
  'IFS=x; c=rmxvictim; $c',
  'IFS=,; set -- rm,victim; $1',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'IFS=, read -a a <<< rm,victim; "${a[@]}"',
  // A shell's script run with positional parameters (bash 5.2 ran rm: victim was gone).
  "sh -c '$0 victim' rm",
  'bash -c \'"$@"\' _ rm victim',
  "bash -c '$1 $2' x rm victim",
  'find . -name victim -exec sh -c \'"$0" "$@"\' rm {} +',
  // A program word that is a substitution printing literal words (bash 5.2: victim was gone).
  '$(echo rm victim)',
  '`echo rm` victim',
  '"$(printf rm)" victim',
  'eval "$(echo rm victim)"',
  'eval "$(printf \'rm victim\')"',
  // compgen runs -C's command and expands -W's list (bash 5.2: victim was gone).
  "compgen -C 'rm victim' x",
  "compgen -W '$(rm victim)' x",
  "compgen -W '`rm victim`' -- x",
  // A value expanded as a prompt runs its substitutions (bash 5.2: victim was gone).
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  "x='$(rm victim)'; echo ${x@P}",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'x=\'`rm victim`\'; : "${x@P}"',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'read -r x <<< \'$(rm victim)\'; echo "a${x@P}"',
  // A shell reading what echo prints into the pipe (bash 5.2 ran rm: victim was gone).
  "echo 'rm victim' | bash",
  'echo rm victim | sh',
  "echo 'rm -rf victim' | bash 3<<<ls",
  "command echo 'rm victim' | source /dev/stdin",
  // A variable assigned an expansion of known values (bash 5.2 ran rm: victim was gone).
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'c=${X:-rm}; $c victim',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'c=r; d=${c}m; $d victim',
  'c=rm; d=$c; $d victim',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'mapfile -t a <<< rm; ${a[0]} victim',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'readarray -t a <<< $\'rm\\nvictim\'; "${a[@]}"',
  'mapfile <<< rm; $MAPFILE victim',
  'set -- x rm victim; shift; "$@"',
  'set -- x rm victim; shift; $1 victim',
  'set -- x y rm victim; shift 2; "$@"',
  "bash -c 'shift; $1 victim' _ x rm",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  ': ${c:=rm}; $c victim',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'echo "${c=rm}" > /dev/null; $c victim',
  // A name reference reads the variable it names (bash 5.2 ran rm: victim was gone).
  'declare -n r=c; c=rm; $r victim',
  'c=rm; typeset -n r=c; "$r" victim',
  // A script read from the input given -s, or from echo's process substitution (bash 5.2).
  "bash -s -- a <<< 'rm victim'",
  "bash -xs <<< 'rm victim'",
  '. <(echo rm victim)',
  "source <(printf 'rm victim')",
  'bash <(echo rm victim)',
  "sh <(echo 'rm victim')",
  // A program found by a lookup of its path (bash 5.2 ran rm: victim was gone).
  '$(which rm) victim',
  '"$(command -v rm)" victim',
  'c=$(type -P rm); $c victim',
  'c=`basename /bin/rm`; $c victim',
  // A slice of a list's elements (bash 5.2 ran rm: victim was gone).
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'set -- rm victim; "${@:1}"',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'set -- x rm victim; "${@:2}"',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'a=(x rm victim); "${a[@]:1:2}"',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, no template
  'c=RM; d="${c,,}"; $d victim',
];

/** Evasions only `requires_user: [action:unknown]` catches: what runs cannot be read. */
const PARKED = [
  'cat <<EOF | sh\n$(ls)\nEOF',
  'vim -c \'call system("rm -rf x")\' file.txt',
  'git -c core.hooksPath=/tmp/hooks status',
  'parallel :::: jobs.txt',
  'LD_PRELOAD=./evil.so ls',
  'at -f job.sh now',
  // Bash adds words read from the input, or the shell reads another input than the line shows.
  'echo "-exec sh -c \'rm -rf victim\' ;" | xargs find . -maxdepth 0',
  'echo -delete | xargs find victim',
  "echo 'rm -rf victim' > s; bash <<<ls <s",
  // A link to rm named cat in the working folder: the name says read, the file deletes.
  './cat -rf victim',
];

describe('the issue 24 contract against the evasions', () => {
  it.each(REFUSED)('refuses %j', (command) => {
    expect(verdict(false, { command })).toBe('deny');
    expect(verdict(true, { command })).toBe('deny');
  });

  it.each(PARKED)('parks %j when unknown requires a person', (command) => {
    expect(verdict(true, { command })).toBe('ask');
  });

  it('refuses a forbidden command in any command field, not only the first', () => {
    expect(verdict(false, { command: 'ls', cmd: 'rm -rf /' })).toBe('deny');
    expect(verdict(false, { command: 'ls', script: 'git push origin main' })).toBe('deny');
    expect(verdict(false, { cmd: 'ls', argv: ['bash', '-c', 'rm -rf /'] })).toBe('deny');
  });

  it('matches command-prefix against every command field', () => {
    const mustNot = validateActionContract({
      contract_version: 1,
      must_and_must_not: { must_not: ['command-prefix:git push'] },
    });
    if (!mustNot.ok) throw new Error('the contract does not validate');
    const decision = evaluateActionContract(mustNot.value, {
      toolName: 'bash',
      toolInput: { command: 'git status', cmd: 'git push --tags' },
    });
    expect(decision?.verdict).toBe('deny');
  });

  it.each([
    'node --version',
    'npm ls',
    'pip list',
    'pip show requests',
    'cargo tree',
    'go env',
    'brew list',
  ])('lets the read-only probe %j through', (command) => {
    expect(verdict(true, { command })).toBe('none');
  });
});
