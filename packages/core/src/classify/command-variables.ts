import type { EmbeddedCommands } from './embedded.js';

/** Variables whose value a program runs as a command (git, ssh, pagers, editors, prompts). */
const COMMAND_VARIABLES = new Set([
  ...['GIT_SSH_COMMAND', 'GIT_SSH', 'GIT_PAGER', 'GIT_EDITOR', 'GIT_SEQUENCE_EDITOR'],
  ...['GIT_EXTERNAL_DIFF', 'GIT_ASKPASS', 'SSH_ASKPASS', 'SUDO_ASKPASS', 'GIT_PROXY_COMMAND'],
  ...['EDITOR', 'VISUAL', 'PAGER', 'MANPAGER', 'SYSTEMD_PAGER', 'RSYNC_RSH', 'PROMPT_COMMAND'],
  ...['LESSOPEN', 'LESSCLOSE', 'BROWSER'],
]);
/** Variables that make a program load code or configuration from elsewhere. */
const CODE_VARIABLES =
  /^(BASH_ENV|ENV|LD_PRELOAD|LD_AUDIT|GIT_CONFIG(_[A-Z0-9_]+)?|GIT_EXEC_PATH|GIT_TEMPLATE_DIR|PERL5OPT|RUBYOPT|PYTHONSTARTUP)$/;
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
  if (COMMAND_VARIABLES.has(name)) {
    if (value.trim() !== '') out.lines.push({ line: value.replace(/^\|+/, ''), via: `${name}=` });
  } else if (CODE_VARIABLES.test(name) || (name === 'NODE_OPTIONS' && NODE_LOADS.test(value))) {
    out.unknown ??= `${name} makes programs load code the classifier does not read`;
  }
}
