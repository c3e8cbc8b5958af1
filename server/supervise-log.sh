# shellcheck shell=sh
# The supervisor's own lines (server/supervise.sh: workers listening, a worker exited) in the
# server's log formats (server/log.mjs, pino's): `say LEVEL LABEL FD MESSAGE` with log_format "text"
# (a person: `[2026-11-26T18:39:12.345Z] INFO: …`) or "json" (a shipper: pino's object). GNU date
# gives milliseconds; elsewhere the time is to the second. tests/unit/logs.test.ts checks that the
# lines read as the log's own.
say() { # level label fd message
  ms=$(date -u +%s%3N 2>/dev/null)
  case "$ms" in *[!0-9]* | "") ms="$(date -u +%s)000" ;; esac
  if [ "$log_format" = json ]; then
    printf '{"level":%s,"time":%s,"pid":%s,"msg":"%s"}\n' "$1" "$ms" "$$" "$4" >&"$3"
  else
    iso=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ 2>/dev/null)
    case "$iso" in *N*Z | "") iso=$(date -u +%Y-%m-%dT%H:%M:%S.000Z) ;; esac
    printf '[%s] %s: %s\n' "$iso" "$2" "$4" >&"$3"
  fi
}
