#!/bin/sh
# airlock-hook.sh CURL_CONFIG: the shell hook client. An agent runs it for each
# hook event, the payload on stdin; it posts the payload to the kernel, which
# answers in the agent's own format, and prints that answer. No Node.js process
# starts: a shell and curl, so a hook costs little more than the agent's own
# cheapest hook.
#
# CURL_CONFIG is the file `airlock hooks install --client sh` wrote (mode 0600):
# the kernel URL of this agent's hook endpoint, the agent credential as a
# header, and curl's time limit. The credential never appears on a command line.
#
# Fail closed: when the kernel cannot answer (down, unreachable, slow, an error
# status), a tool-call event exits 2 with the reason on stderr, which Claude
# Code, Codex and Gemini CLI all treat as a refusal; any other event passes.

config=$1
if [ -z "$config" ] || [ ! -r "$config" ]; then
  echo "airlock-hook.sh: cannot read the hook configuration '$config'; the call was not run" >&2
  exit 2
fi

input=$(cat)
if answer=$(printf '%s' "$input" | curl --silent --show-error --fail --config "$config" --data-binary @- 2>&1); then
  printf '%s\n' "$answer"
  exit 0
else
  status=$?
fi

case $input in
  *'"PreToolUse"'* | *'"BeforeTool"'*)
    printf 'Airlock could not decide this call, so it was not run: the kernel did not answer (curl exit %s: %s)\n' "$status" "$answer" >&2
    exit 2
    ;;
esac
exit 0
