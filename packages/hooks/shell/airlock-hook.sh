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
# status, an answer that is not a decision), a tool-call event exits 2 with the
# reason on stderr, which Claude Code, Codex and Gemini CLI all treat as a
# refusal; any other event passes, with a note for the user (systemMessage).

config=$1
input=$(cat)

# Fails the event: a tool call is refused (exit 2), anything else passes with a note the
# user sees (systemMessage, as the Node.js client answers): a report of a call that ran and
# could not be recorded (a payload over the kernel's body limit) is not lost unseen. The note
# drops quotes, backslashes and control characters, so it is always a JSON string.
fail() {
  case $input in
    *'"PreToolUse"'* | *'"BeforeTool"'*)
      printf 'Airlock could not decide this call, so it was not run: %s\n' "$1" >&2
      exit 2
      ;;
  esac
  printf 'airlock-hook.sh: %s\n' "$1" >&2
  printf '{"systemMessage":"Airlock could not record this event: %s"}\n' \
    "$(printf '%s' "$1" | tr -d '"\\\000-\037')"
  exit 0
}

if [ -z "$config" ] || [ ! -r "$config" ]; then
  fail "cannot read the hook configuration '$config'"
fi

# The session's start and the reports of what ran: the agent gives their entries 30 s, so they
# take the config's shorter `# short-max-time` (a comment to curl) over its max-time.
short_time=
case $input in
  *'"hook_event_name":"SessionStart"'* | *'"hook_event_name":"PostToolUse"'* | \
    *'"hook_event_name":"PostToolUseFailure"'* | *'"hook_event_name":"AfterTool"'*)
    while IFS= read -r line; do
      case $line in '# short-max-time = '*) short_time=${line#'# short-max-time = '} ;; esac
    done <"$config"
    case $short_time in '' | *[!0-9]*) short_time= ;; esac
    ;;
esac

nl='
'
# The status goes on a line of its own after the body: curl --fail lets a redirect's body through.
# An answer past 8 MiB is refused (curl exit 63): the kernel's are a few KiB, and the shell would
# take about a second per MiB over a longer one, past the agent's own hook timeout.
if response=$(printf '%s' "$input" | curl --silent --show-error --fail --max-filesize 8388608 --config "$config" ${short_time:+--max-time "$short_time"} --data-binary @- --write-out "$nl%{http_code}" 2>&1); then
  :
else
  fail "the kernel did not answer (curl exit $?: $response)"
fi
status=${response##*"$nl"}
answer=${response%"$nl"*}
case $status in
  2??) ;;
  *) fail "the kernel answered $status: '$(printf '%s' "$answer" | head -c 200)'" ;;
esac
answer=${answer%"$nl"}

# Only the kernel's JSON answer is printed: one line, one object (a proxy's
# page, a redirect's body, an answer cut short or with more after it is none),
# and a tool call's answer must carry a decision the agent knows: an agent runs
# a call whose hook printed anything else.
case $answer in
  *"$nl"*) fail "the answer is not the kernel's: it holds more than one line" ;;
  '{'*'}') ;;
  *) fail "the answer is not the kernel's: '$(printf '%s' "$answer" | head -c 200)'" ;;
esac
case $input in
  *'"PreToolUse"'* | *'"BeforeTool"'*)
    case $answer in
      *'"permissionDecision":"allow"'* | *'"permissionDecision":"deny"'* | *'"permissionDecision":"ask"'* | *'"permissionDecision":"defer"'*) ;;
      *'"decision":"allow"'* | *'"decision":"deny"'* | *'"decision":"block"'*) ;;
      *) fail "the kernel's answer holds no decision: '$(printf '%s' "$answer" | head -c 200)'" ;;
    esac
    ;;
esac
printf '%s\n' "$answer"
exit 0
