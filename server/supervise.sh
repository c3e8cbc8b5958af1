#!/bin/sh
# `npm start` / `npm run serve`: one server process per core on one port, supervised by this shell
# script (docs/decisions/0036-lean-processes.md, "A shell for a primary"). Arguments: Node's flags
# for every process (package.json passes V8's young-generation cap). SM_NODE: the node to run
# (default: the one on PATH, where npm puts the project's own first; not npm's NODE, which names the
# Node that runs npm itself, possibly an older one).
#
# 1. A short-lived Node child (server/prepare.mjs) checks the settings and folders, runs the
#    migrations and the demo seed, and writes the few settings this script needs into a file.
# 2. With WEB_CONCURRENCY=1 (or where the system cannot share a port) this script becomes that one
#    server process (exec). Otherwise it starts the workers (server/worker.mjs), each listening on
#    the same port with SO_REUSEPORT, the kernel spreading the connections among them; a worker that
#    dies is replaced (with back-off while they keep dying); SIGTERM or SIGINT stops them all, each
#    finishing its requests in flight first.
#
# Why a shell rather than node:cluster's primary: the primary only supervises, and Node itself is
# about 45 MB of resident memory where this shell is about 1 MB (the decision record has the figures).
# POSIX sh only (dash, busybox ash, bash): no bashisms.
set -u
cd "$(dirname "$0")/.." || exit 1
node=${SM_NODE:-node}

# the workers' memory settings unless the operator set their own (decision 0036): glibc's malloc
# with two arenas and a fixed mmap threshold, V8's young generation capped at 4 MB per semi-space
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-131072}"
case " $* ${NODE_OPTIONS:-} " in
  *" --max-semi-space-size"*) ;;
  *) set -- "$@" --max-semi-space-size=4 ;;
esac

run=$(mktemp -d "${TMPDIR:-/tmp}/sweet-moments-XXXXXX") || exit 1
stopping=0
prepare=""
on_signal() {
  stopping=1
  [ -n "$prepare" ] && kill -TERM "$prepare" 2>/dev/null
}
trap on_signal TERM INT
trap 'rm -rf "$run"' EXIT

SM_SETTINGS_FILE="$run/settings" "$node" "$@" server/prepare.mjs &
prepare=$!
wait "$prepare"
code=$?
# a signal while preparing: wait returned early; the child was asked to stop, let it finish
while kill -0 "$prepare" 2>/dev/null; do wait "$prepare"; code=$?; done
prepare=""
if [ "$stopping" = 1 ] || [ "$code" != 0 ] || [ ! -s "$run/settings" ]; then exit 1; fi
# workers=N log_format=text|json grace=SECONDS port=PORT (server/prepare.mjs)
workers=1 log_format=text grace=10 port=""
. "$run/settings"

if [ "$workers" -le 1 ]; then
  rm -rf "$run"
  trap - EXIT TERM INT
  exec "$node" "$@" server/index.mjs
fi

# its lines in the log's formats (text or json, as LOG_FORMAT says)
. server/supervise-log.sh

# One worker's place: its process, replaced when it dies (after 250 ms, doubling while they keep
# dying within 30 s of their start, at most 30 s), until the server stops. Runs in a subshell of its
# own; `number` is the place's, the arguments are Node's flags.
place() {
  # a signal to the whole group (a service manager's stop, Ctrl-C) is for the workers and this
  # script: a place stays until its worker has finished (Node resets the signals it inherits)
  trap '' TERM INT
  crashes=0
  replaces=""
  while :; do
    started=$(date +%s)
    SM_WORKER="$number" SM_REPLACES="$replaces" SM_READY_FILE="$run/ready" PORT="$port" "$node" "$@" server/worker.mjs &
    pid=$!
    echo "$pid" >"$run/worker-$number"
    wait "$pid" 2>/dev/null
    code=$?
    # a Ctrl-C reaches every process at once: a worker that stopped cleanly (exit 0, its answer to a
    # signal) may be done before the stop is noted; a crash is replaced without this wait
    [ "$code" = 0 ] && sleep 0.2
    [ -e "$run/stopping" ] && exit 0
    if [ "$code" -gt 128 ]; then why="SIG$(kill -l "$((code - 128))")"; else why=$code; fi
    if [ $(($(date +%s) - started)) -ge 30 ]; then crashes=1; else crashes=$((crashes + 1)); fi
    delay=250
    i=1
    while [ "$i" -lt "$crashes" ] && [ "$delay" -lt 30000 ]; do
      delay=$((delay * 2))
      i=$((i + 1))
    done
    [ "$delay" -gt 30000 ] && delay=30000
    say 50 ERROR 2 "[cluster] worker $pid exited ($why); a new one in $delay ms"
    sleep "$((delay / 1000)).$(printf '%03d' $((delay % 1000)))"
    [ -e "$run/stopping" ] && exit 0
    replaces=$pid
  done
}

# SIGTERM or SIGINT: every worker finishes its requests in flight (SHUTDOWN_GRACE_SECONDS, then
# exits a second later whatever: server/index.mjs); this script waits for them at most 2 s longer
stop() {
  if [ ! -e "$run/stopping" ]; then
    : >"$run/stopping"
    for f in "$run"/worker-*; do
      [ -e "$f" ] && kill -TERM "$(cat "$f")" 2>/dev/null
    done
  fi
}
trap stop TERM INT

: >"$run/ready"
places=""
number=1
while [ "$number" -le "$workers" ]; do
  place "$@" &
  places="$places $!"
  number=$((number + 1))
done

# "N workers listening" once each has said it listens (server/worker.mjs writes its pid)
while [ ! -e "$run/stopping" ] && [ "$(wc -l <"$run/ready")" -lt "$workers" ]; do sleep 0.1; done
[ -e "$run/stopping" ] || say 30 INFO 1 "[cluster] $workers workers listening"

# until a stop (a trapped signal interrupts the wait); every place ending without one is a failure
# shellcheck disable=SC2086 # the places' process ids, one word each
wait $places
[ -e "$run/stopping" ] || exit 1
# then until every place has ended, at most the grace period and 2 s
deadline=$(($(date +%s) + grace + 2))
while [ "$(date +%s)" -lt "$deadline" ]; do
  left=""
  for p in $places; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
  [ -z "$left" ] && exit 0
  sleep 0.2
done
exit 0
