#!/usr/bin/env bash
# integration.bench_burner: pocl-launch-bench --burner starts its burning process, records
# it in the JSON, and leaves no burner behind: after a normal run, after a --processes run,
# and when the bench is killed (SIGKILL, SIGTERM) in the middle of a case.
#
#   tests/bench/burner_run.sh build/bin/pocl-launch-bench
set -euo pipefail
bench=$1
tmp=$(mktemp -d /tmp/hk-bench-burner-XXXXXX)
bg=
seen=()  # every burner pid the bench printed: none may run when this script ends
cleanup() {
  [[ -n $bg ]] && kill -KILL "$bg" 2>/dev/null
  for p in "${seen[@]}"; do burning "$p" && kill -KILL "$p"; done
  rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  for f in "$tmp"/*.err; do [[ -f $f ]] && { echo "--- $f" >&2; cat "$f" >&2; }; done
  exit 1
}

# The pid the bench printed ("burner: pid N, ..."), or nothing.
burner_pid() { sed -n 's/^burner: pid \([0-9]*\),.*/\1/p' "$1" | head -n 1; }

# True while the process runs the burner's loop (gone or a zombie: false).
burning() {
  local stat cmd
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  [[ ${stat##*) } != [ZX]* ]] || return 1
  cmd=$(tr '\0' ' ' < "/proc/$1/cmdline" 2>/dev/null) || return 1
  [[ $cmd == *"while :; do :; done"* ]]
}

# Waits up to 10 s for the burner to stop burning.
stops_burning() {
  for _ in $(seq 1000); do burning "$1" || return 0; sleep 0.01; done
  return 1
}

meta_burner() { tr -d ' \n' < "$1" | grep -o '"burner":[a-z]*' | head -n 1; }

# 1. A normal run: the JSON says so, the burner is gone when the bench has exited.
"$bench" --burner --quick --runs 2 --filter '^launch/trivial$' --json "$tmp/run.json" \
  > "$tmp/run.out" 2> "$tmp/run.err" || fail "--burner run exited with $?"
pid=$(burner_pid "$tmp/run.err")
[[ -n $pid ]] || fail "no 'burner: pid N' line on stderr"
seen+=("$pid")
[[ $(meta_burner "$tmp/run.json") == '"burner":true' ]] || fail "meta.burner is not true"
grep -q '^# beside a CPU burner' "$tmp/run.out" || fail "no burner line in the table's header"
burning "$pid" && fail "burner $pid still runs after the bench exited"

# 2. Without --burner: no burner, and the JSON says that too.
"$bench" --quick --runs 2 --filter '^launch/trivial$' --json "$tmp/quiet.json" \
  > /dev/null 2> "$tmp/quiet.err" || fail "run without --burner exited with $?"
[[ -z $(burner_pid "$tmp/quiet.err") ]] || fail "a burner without --burner"
[[ $(meta_burner "$tmp/quiet.json") == '"burner":false' ]] || fail "meta.burner is not false"

# 3. --processes 2: one burner (the parent's) for both processes, recorded in the result.
"$bench" --burner --processes 2 --quick --runs 2 --filter '^launch/trivial$' \
  --json "$tmp/processes.json" > /dev/null 2> "$tmp/processes.err" ||
  fail "--burner --processes 2 exited with $?"
[[ $(burner_pid "$tmp/processes.err" | wc -l) == 1 ]] || fail "want one burner pid line"
[[ $(grep -c '^burner: pid' "$tmp/processes.err") == 1 ]] || fail "a burner per process"
pid=$(burner_pid "$tmp/processes.err")
seen+=("$pid")
[[ $(meta_burner "$tmp/processes.json") == '"burner":true' ]] || fail "--processes: meta.burner"
burning "$pid" && fail "burner $pid of --processes still runs"

# 4. The bench killed in the middle of a case: the burner goes with it.
for sig in KILL TERM; do
  "$bench" --burner --runs 100000 --filter '^launch/trivial$' > /dev/null 2> "$tmp/$sig.err" &
  bg=$!
  pid=
  for _ in $(seq 3000); do
    pid=$(burner_pid "$tmp/$sig.err")
    [[ -n $pid ]] && break
    kill -0 "$bg" 2>/dev/null || fail "SIG$sig: the bench ended before it printed a burner"
    sleep 0.01
  done
  [[ -n $pid ]] || fail "SIG$sig: no burner pid after 30 s"
  seen+=("$pid")
  # Its loop runs once the shell has started.
  for _ in $(seq 1000); do burning "$pid" && break; sleep 0.01; done
  burning "$pid" || fail "SIG$sig: burner $pid is not running while the bench runs"
  sleep 0.5  # into the case
  kill -"$sig" "$bg"
  wait "$bg" 2>/dev/null || true
  bg=
  stops_burning "$pid" || fail "SIG$sig: burner $pid still runs after the bench was killed"
done
echo "burner: started, recorded and stopped in every case"
