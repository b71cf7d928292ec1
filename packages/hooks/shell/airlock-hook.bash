#!/usr/bin/env bash
# airlock-hook.bash CURL_CONFIG: the bash hook client. It does what airlock-hook.sh
# does (post the hook payload to the kernel, print the answer in the agent's own
# format), but speaks HTTP itself over bash's /dev/tcp: no curl process starts,
# and curl's own start is most of a hook event's cost on a small machine. An
# https:// kernel URL goes through curl with the same configuration.
#
# CURL_CONFIG is the file `airlock hooks install --client bash` wrote (mode
# 0600): the kernel URL of this agent's hook endpoint, the agent credential as a
# header, and the time limit. The credential never appears on a command line.
#
# Fail closed: when the kernel cannot answer (down, unreachable, slow, an error
# status, an answer that is not a decision), a tool-call event exits 2 with the
# reason on stderr, which Claude Code, Codex and Gemini CLI all treat as a
# refusal; any other event passes, with a note for the user (systemMessage).

config=$1
# A kernel that closes the connection while a long payload is still being
# written (a 413) must not kill the client with SIGPIPE: the write fails instead.
trap '' PIPE

# Everything is read in the C locale: lengths count bytes, and `read -N` reads a
# pipe or a socket in blocks (a `read -d` or a line read takes one byte per
# system call there, which on a tool's long output is most of the hook's time).
LC_ALL=C
# The largest payload or answer read: far above what an agent sends or the kernel answers.
READ_LIMIT=268435456
# The longest header block read: the kernel's is a few hundred bytes.
HEADER_LIMIT=65536
# The longest answer read (the kernel's is a few KiB, a person's edit of the input at most its
# body limit): reading one answer takes about a second per MiB here, which must end well within
# the agent's hook timeout.
ANSWER_LIMIT=8388608
IFS= read -r -N "$READ_LIMIT" input

# Fails the event: a tool call is refused (exit 2), anything else passes. It
# writes to a copy of stderr (fd 5), which a redirection around the command it
# interrupts (the watchdog's signal lands inside the connect's `2>/dev/null`)
# does not silence.
exec 5>&2
fail() {
  # Once the event's outcome is known, a late deadline changes nothing.
  trap '' USR1
  case $input in
    *'"PreToolUse"'* | *'"BeforeTool"'*)
      printf 'Airlock could not decide this call, so it was not run: %s\n' "$1" >&5
      exit 2
      ;;
  esac
  printf 'airlock-hook.bash: %s\n' "$1" >&5
  # A note the user sees (systemMessage, as the Node.js client answers), so a report that could
  # not be recorded is not lost unseen; without quotes, backslashes and control characters.
  local note=${1//[$'\001'-$'\037'\"\\]/}
  printf '{"systemMessage":"Airlock could not record this event: %s"}\n' "$note"
  exit 0
}

# Prints the kernel's answer, or fails the event when it is not one: only a JSON
# answer is printed (a proxy's page or an empty body is none), and a tool call's
# answer must carry a decision, since an agent runs a call whose hook printed
# anything else.
answer_with() {
  # One line, one object: a page, an answer cut short or one with more after it is none.
  [[ $1 != *$'\n'* && $1 == '{'*'}' ]] || fail "the answer is not the kernel's: '${1:0:200}'"
  case $input in
    *'"PreToolUse"'* | *'"BeforeTool"'*)
      [[ $1 =~ \"permissionDecision\":\"(allow|deny|ask|defer)\" || $1 =~ \"decision\":\"(allow|deny|block)\" ]] ||
        fail "the kernel's answer holds no decision the agent knows: '${1:0:200}'"
      ;;
  esac
  trap '' USR1
  printf '%s\n' "$1"
  exit 0
}

if [ -z "$config" ] || [ ! -r "$config" ]; then
  fail "cannot read the hook configuration '$config'"
fi

# The configuration, in curl's syntax as install wrote it: `key = "value"` with
# backslashes and double quotes escaped, and `max-time = N`.
url=
headers=
max_time=110
short_time=
while IFS= read -r line; do
  if [[ $line =~ ^(url|header)\ =\ \"(.*)\"$ ]]; then
    value=${BASH_REMATCH[2]}
    value=${value//\\\\/$'\001'}
    value=${value//\\\"/\"}
    value=${value//$'\001'/\\}
    if [ "${BASH_REMATCH[1]}" = url ]; then url=$value; else headers+="$value"$'\r\n'; fi
  elif [[ $line =~ ^max-time\ =\ ([0-9]+)$ ]]; then
    max_time=${BASH_REMATCH[1]}
  elif [[ $line =~ ^#\ short-max-time\ =\ ([0-9]+)$ ]]; then
    short_time=${BASH_REMATCH[1]}
  fi
done <"$config"
# The session's start and the reports of what ran: the agent gives their entries 30 s.
if [[ -n $short_time && $input =~ \"hook_event_name\":\"(SessionStart|PostToolUse|PostToolUseFailure|AfterTool)\" ]]; then
  max_time=$short_time
fi

if [[ $url == https://* ]]; then
  # The status on a line of its own after the body: curl --fail lets a redirect's body through.
  if answer=$(printf '%s' "$input" | curl --silent --show-error --fail --config "$config" --max-time "$max_time" --data-binary @- --write-out $'\n%{http_code}' 2>&1); then
    status=${answer##*$'\n'}
    answer=${answer%$'\n'*}
    [[ $status == 2?? ]] || fail "the kernel answered $status: '${answer:0:200}'"
    answer_with "${answer%$'\n'}"
  else
    fail "the kernel did not answer (curl exit $?: $answer)"
  fi
fi
if ! [[ $url =~ ^http://(\[[^]]+\]|[^/:]+)(:([0-9]+))?(/.*)?$ ]]; then
  fail "the configured kernel URL '$url' is not an http:// or https:// URL"
fi
host=${BASH_REMATCH[1]}
port=${BASH_REMATCH[3]:-80}
path=${BASH_REMATCH[4]:-/}
address=${host#[}
address=${address%]}

# One deadline bounds the connection too: connect() to a host that drops
# packets, or to a kernel whose listen queue is full, waits about two minutes,
# past the agent's own hook timeout (after which Codex and Gemini CLI run the
# call). A watchdog, a forked shell that starts no program, signals this one
# when the time is up. It sleeps in a read of a new pseudo-terminal's master
# side, which nothing writes; where that read cannot wait (no /dev/ptmx), it
# runs sleep instead. It signals only while this client is still its parent:
# a client killed outright leaves it behind, and the client's process id may
# by then belong to another process.
watch() {
  read -r -t "$max_time" </dev/ptmx
  [ $? -gt 128 ] || sleep "$max_time" || return
  if [ -r "/proc/$BASHPID/stat" ]; then
    local _pid _name _state parent
    read -r _pid _name _state parent _ <"/proc/$BASHPID/stat"
    [ "$parent" = "$$" ] || return
  fi
  kill -USR1 "$$"
}
trap 'fail "the kernel did not answer within $max_time s"' USR1
# It holds none of the agent's pipes, which would keep the agent waiting.
(watch) </dev/null >/dev/null 2>&1 &
watchdog=$!
# Out of the job table, so that killing a helper prints no job report on the agent's stderr.
disown "$watchdog"
# Whatever ends the client ends its helpers: the watchdog, and a long payload's
# writer. With SIGKILL: a forked shell of one that traps EXIT catches SIGTERM, and
# a write it is blocked in resumes after the handler, so TERM would not end it.
trap 'kill -KILL "$watchdog" ${writer:-} 2>/dev/null' EXIT

length=${#input}
if ! { exec 3<>"/dev/tcp/$address/$port"; } 2>/dev/null; then
  fail "the kernel at $host:$port did not accept a connection"
fi
request() {
  printf 'POST %s HTTP/1.0\r\nHost: %s:%s\r\n%sContent-Length: %d\r\n\r\n%s' \
    "$path" "$host" "$port" "$headers" "$length" "$input" >&3 2>/dev/null
}
if [ "$length" -le 65536 ]; then
  # Fits in the socket's buffer: written at once, whatever the kernel does.
  request || fail "the kernel at $host:$port closed the connection"
else
  # A long payload is written in the background, so that the read's time limit
  # below also bounds a kernel that accepted the connection but does not read.
  request &
  writer=$!
  disown "$writer"
fi

# The whole answer, up to the end of the connection (HTTP/1.0: the server closes
# it after the answer), then its status line, headers and body.
IFS= read -r -N "$((ANSWER_LIMIT + 1))" -t "$max_time" answer <&3
read_status=$?
if [ -n "${writer:-}" ]; then
  kill -KILL "$writer" 2>/dev/null
fi
[ "$read_status" -gt 128 ] && fail "the kernel did not answer within $max_time s"
exec 3<&-
[ "${#answer}" -gt "$ANSWER_LIMIT" ] && fail "the kernel's answer is longer than $ANSWER_LIMIT bytes"
# The headers are looked for in the answer's start only: a pattern removal's time grows with the
# square of the text it searches, and no signal interrupts it (a few MiB with no blank line held
# the client for minutes, past the agent's own timeout).
start=${answer:0:$HEADER_LIMIT}
head=${start%%$'\r\n\r\n'*}
if [ "$head" = "$start" ]; then
  [ "${#answer}" -gt "$HEADER_LIMIT" ] && fail "the kernel's headers did not end within $HEADER_LIMIT bytes"
  fail "the kernel's answer ended before its headers did"
fi
body=${answer:${#head}+4}
status=${head%%$'\r\n'*}
[[ $status =~ ^HTTP/[0-9.]+\ 2[0-9][0-9] ]] || fail "the kernel answered '$status': $body"
lower=${head,,}
encoding=${lower#*$'\r\n'transfer-encoding:}
if [ "$encoding" != "$lower" ] && [[ ${encoding%%$'\r\n'*} == *chunked* ]]; then
  fail "the kernel answered in chunks, which this client does not read"
fi
# The kernel says how long its answer is: one cut short (or with more after it) is refused.
declared=${lower#*$'\r\n'content-length:}
[ "$declared" = "$lower" ] && fail "the kernel's answer has no Content-Length"
declared=${declared%%$'\r\n'*}
declared=${declared//[[:space:]]/}
[[ $declared =~ ^[0-9]+$ && ${#body} -eq $declared ]] ||
  fail "the kernel's answer is ${#body} bytes where it said ${declared:0:20}"

# One line break ends the printed answer (a substring, not a pattern: a pattern
# removal tries every position of a long answer).
[ "${body: -1}" = $'\n' ] && body=${body:0:${#body}-1}
answer_with "$body"
