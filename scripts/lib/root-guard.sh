# Sourced by the scripts that work in Debian roots (debian-root.sh, test-in-root.sh,
# .ci/run): running a long command so that a signal stops it at once, stopping what runs
# inside a root, and unmounting and removing roots safely.
#
#   source scripts/lib/root-guard.sh
#   trap 'hk_stop_child; exit 143' TERM
#   hk_run make -j2                    # waits; the trap runs as soon as TERM arrives
#   hk_remove_root build-roots/sid     # unmounts everything below it first, or refuses

hk_child=

# Runs a command and returns its status. bash runs a trap only once its foreground
# command has finished, so off a terminal the command runs in the background in a process
# group of its own (setsid), which hk_stop_child ends. On a terminal it stays in the
# foreground, where it can read the terminal and Ctrl-C reaches it directly.
hk_run() {
  if [[ -t 0 ]]; then
    "$@"
    return
  fi
  setsid "$@" <&0 &
  hk_child=$!
  local status=0
  wait "$hk_child" || status=$?
  # wait also returns when a signal arrives: a trapped one has run its trap by now (ours
  # exit), an ignored SIGINT (a background job's) has not, and the command still runs.
  while kill -0 "$hk_child" 2>/dev/null; do
    status=0
    wait "$hk_child" || status=$?
  done
  hk_child=
  return "$status"
}

# Sends TERM to the process group hk_run started and waits for it to end.
hk_stop_child() {
  [[ -n $hk_child ]] || return 0
  kill -TERM -- "-$hk_child" 2>/dev/null || true
  wait "$hk_child" 2>/dev/null || true
  hk_child=
}

# The mount points at or below a directory, deepest first.
hk_mounts_under() {  # dir
  local dir
  dir=$(realpath -m "$1")
  findmnt -rn -o TARGET | awk -v d="$dir" '$0 == d || index($0, d "/") == 1' | sort -r
}

# Ends every process whose root directory is the root or below it (daemons that a
# package's scripts started, tests a killed ctest left behind): they keep mounts busy.
hk_kill_in_root() {  # root, or a directory of roots
  local root pid signal link
  root=$(realpath -m "$1")
  for signal in TERM KILL; do
    local found=0
    for pid in /proc/[0-9]*; do
      link=$(readlink "$pid/root" 2>/dev/null) || continue
      if [[ $link == "$root" || $link == "$root"/* ]]; then
        kill "-$signal" "${pid#/proc/}" 2>/dev/null && found=1
      fi
    done
    [[ $found == 1 ]] || return 0
    sleep 1
  done
}

# Unmounts everything mounted at or below a directory; a mount still busy is detached
# lazily, which removes it from the directory tree at once.
hk_unmount_under() {  # dir
  local target
  while IFS= read -r target; do
    umount "$target" 2>/dev/null || umount -l "$target" ||
      echo "root-guard: cannot unmount $target" >&2
  done < <(hk_mounts_under "$1")
}

# Removes a root (or a directory of roots) after stopping its processes and unmounting
# everything below it. Refuses while anything is still mounted there: rm -rf through a
# bind mount of /dev deletes the machine's own device nodes. --one-file-system is a
# second guard against a mount that appeared in between.
hk_remove_root() {  # dir
  local dir=$1 left
  [[ -e $dir ]] || return 0
  hk_kill_in_root "$dir"
  hk_unmount_under "$dir"
  left=$(hk_mounts_under "$dir")
  if [[ -n $left ]]; then
    echo "root-guard: not removing $dir, still mounted:" $left >&2
    return 1
  fi
  rm -rf --one-file-system -- "$dir"
}
