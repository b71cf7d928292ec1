import type { EmbeddedCommands } from './embedded.js';
import { lexOnce } from './shell-lexer.js';

/** Variables whose value a program runs as a command (git, ssh, pagers, editors, prompts). */
const COMMAND_VARIABLES = new Set([
  ...['GIT_SSH_COMMAND', 'GIT_SSH', 'GIT_PAGER', 'GIT_EDITOR', 'GIT_SEQUENCE_EDITOR'],
  ...['GIT_EXTERNAL_DIFF', 'GIT_ASKPASS', 'SSH_ASKPASS', 'SUDO_ASKPASS', 'GIT_PROXY_COMMAND'],
  ...['EDITOR', 'VISUAL', 'PAGER', 'MANPAGER', 'SYSTEMD_PAGER', 'RSYNC_RSH', 'PROMPT_COMMAND'],
  ...['LESSOPEN', 'LESSCLOSE', 'BROWSER', 'ACK_PAGER', 'ACK_PAGER_COLOR', 'BAT_PAGER'],
  ...['FZF_DEFAULT_COMMAND', 'RSYNC_CONNECT_PROG', 'GH_PAGER', 'GH_EDITOR', 'GH_BROWSER'],
  ...['KUBE_EDITOR', 'SUDO_EDITOR', 'PSQL_PAGER', 'PSQL_EDITOR', 'FCEDIT', 'DELTA_PAGER'],
  ...['SYSTEMD_EDITOR', 'SVN_EDITOR', 'SVN_SSH', 'CVS_RSH', 'HGEDITOR', 'WGET_ASKPASS'],
]);
/**
 * Variables that make a program load code or configuration from elsewhere:
 * start-up files, preloaded or searched libraries and modules (a module path
 * put first shadows the standard one), npm's shell and configuration files;
 * `PATH`, which decides what every later program name runs; `HOME` and
 * `XDG_CONFIG_HOME`, where git and others find configuration that names
 * commands; and variables holding a program's options (`MANOPT`,
 * `TAR_OPTIONS`, `FZF_DEFAULT_OPTS`) or the file it reads them from
 * (`RIPGREP_CONFIG_PATH`, whose `--pre` runs a command).
 */
const CODE_VARIABLES =
  /^(PATH|HOME|XDG_CONFIG_HOME|XDG_CONFIG_DIRS|MANOPT|TAR_OPTIONS|RIPGREP_CONFIG_PATH|FZF_DEFAULT_OPTS|FZF_DEFAULT_OPTS_FILE|BAT_CONFIG_PATH|ACKRC|WGETRC|BASH_ENV|ENV|LD_PRELOAD|LD_AUDIT|LD_LIBRARY_PATH|DYLD_[A-Z_]+|GCONV_PATH|GIT_CONFIG(_[A-Z0-9_]+)?|GIT_EXEC_PATH|GIT_TEMPLATE_DIR|PERL5OPT|PERL5LIB|PERLLIB|PERL5DB|RUBYOPT|RUBYLIB|PYTHONSTARTUP|PYTHONPATH|PYTHONHOME|PYTHONUSERBASE|NODE_PATH|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|DOTNET_STARTUP_HOOKS|OPENSSL_CONF|(npm_config_|NPM_CONFIG_)(script_shell|shell|node_options|userconfig|globalconfig|onload_script|git|editor|browser|viewer|SCRIPT_SHELL|SHELL|NODE_OPTIONS|USERCONFIG|GLOBALCONFIG|ONLOAD_SCRIPT|GIT|EDITOR|BROWSER|VIEWER))$/;
/** An exported bash function (`BASH_FUNC_NAME%%=() { BODY; }`): a bash started under it runs BODY for NAME. */
const EXPORTED_FUNCTION = /^BASH_FUNC_(.+)(%%|\(\))$/;
/** Prompt strings: bash expands them (`PS4` under `set -x`), so their `$(...)` and backticks run. */
const PROMPT_VARIABLES = /^PS[0-4]$/;
/** Variables bash expands where it reads them: a start-up file's name, a prompt. */
const EXPANDED_VARIABLES = /^(BASH_ENV|ENV|PS[0-4])$/;
const NODE_LOADS = /(^|\s)(-r|--require|--import|--loader|--experimental-loader)(\s|=|$)/;

/**
 * For an assignment `NAME=value` (before a command, after `env`, `export`,
 * `declare`...), the command its value makes a later program run, or why it
 * cannot be read.
 */
export function assignmentCommands(text: string, out: EmbeddedCommands): void {
  const equals = text.indexOf('=');
  if (equals < 0) return;
  const name = text.slice(0, equals).replace(/\+$/, '');
  const value = text.slice(equals + 1);
  const exported = EXPORTED_FUNCTION.exec(name);
  if (exported !== null) {
    // Any later command named NAME in a bash child runs the body instead: what runs is not what it says.
    out.unknown ??= `${name} defines the bash function ${exported[1]} for the shells it starts`;
    const body = value.replace(/^\s*\(\s*\)/, '');
    if (body.trim() !== '') out.lines.push({ line: body, via: `function ${exported[1]}` });
  } else if (COMMAND_VARIABLES.has(name)) {
    if (value.trim() !== '') out.lines.push({ line: value.replace(/^\|+/, ''), via: `${name}=` });
  } else if (CODE_VARIABLES.test(name) || (name === 'NODE_OPTIONS' && NODE_LOADS.test(value))) {
    out.unknown ??= `${name} makes programs load code the classifier does not read`;
  } else if (PROMPT_VARIABLES.test(name) && /[$`]/.test(value)) {
    out.unknown ??= `${name} is a prompt: the shell expands it, running its substitutions`;
  }
  // `BASH_ENV='$(rm -rf x)' bash -c true` runs rm where bash expands the name: each is walked.
  if (EXPANDED_VARIABLES.test(name)) expansionCommands(value, `${name}=`, out);
}

/**
 * The commands of the substitutions (`$(...)`, backticks) in text bash expands later, as a
 * start-up file's name or compgen's word list, through `via`; text it cannot read is unknown.
 */
export function expansionCommands(text: string, via: string, out: EmbeddedCommands): void {
  if (!/[$`]/.test(text)) return;
  const read = lexOnce(`: ${text}`);
  if (read.problems.length > 0) out.unknown ??= `${via} expands text that cannot be read`;
  for (const segment of read.segments) {
    for (const line of segment.substitutions) out.lines.push({ line, via });
  }
}
