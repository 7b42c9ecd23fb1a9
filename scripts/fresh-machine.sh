#!/usr/bin/env bash
# The fresh-machine proof: runs the README's two commands, exactly as written, in a minimal Debian 12 root
# that has nothing of the project's installed, and checks that the report exists. .ci/run runs it, so CI
# proves what the README promises a newcomer (packages named in scripts/setup.sh, not only recommended).
#
#   bash scripts/fresh-machine.sh                    # the whole proof, as root (40 min on 2 cores without caches)
#   bash scripts/fresh-machine.sh --configure-only   # only setup.sh and the CMake configure (a few minutes):
#                                                    # every package is installed and every bundled backend found
#
# Steps, each timed:
#   1. host tools   debootstrap (installed with apt-get when missing)
#   2. bare root    `debootstrap --variant=minbase bookworm` from the Debian mirror the host's apt already
#                   uses, cached as a tarball in /var/cache/convcheck/. Only this bare root is ever cached,
#                   never one with the project's packages, which would hide what this check exists to see.
#                   Each run unpacks a fresh copy of it.
#   3. tree         the committed tree (`git archive HEAD`: uncommitted changes are not part of the proof) in
#                   /root/convcheck; the host's Debian mirrors and apt proxy settings; /proc, /sys, a minimal
#                   /dev, /dev/pts and /dev/shm mounted (Chromium and the sanitizers need them); the two
#                   caches below mounted
#   4. test         in the root, as root, from /root/convcheck: `bash scripts/test.sh`
#   5. main         then `bash scripts/main.sh`
#   6. checks       build/report.html exists and every bundled backend plugin was built
# Everything mounted is unmounted on exit, failure or interrupt (and the processes left in the root ended
# first); then the work folder is deleted.
#
# Two caches outlive a run, beside the bare root (FRESH_CACHE_DIR), so that CI stays well inside its time
# on a machine that has run it before; neither can hide a missing install step:
#   apt-archives/  the .deb files apt downloaded, mounted as the root's /var/cache/apt/archives. setup.sh
#                  still runs `apt-get install` for every package into the empty root; apt only skips
#                  downloading a file whose checksum (from the fresh package index) it already holds.
#   ccache/        the compiler cache (setup.sh installs ccache; the builds use it when present), as the
#                  root's CCACHE_DIR. A cached object is reused only when the compiler, its options and the
#                  preprocessed source (every header it includes) are the same, so a header of a package
#                  that is not installed fails the build as before. CMake's configure and every link run anew.
# FRESH_NO_CACHE=1 runs without them (the first run on a machine does too: the caches start empty).
#
# Environment: FRESH_WORK_DIR (parent of the work folder, default /var/tmp), FRESH_KEEP=1 (keep the work
# folder to look into; mounts are removed all the same), FRESH_CACHE_DIR (default /var/cache/convcheck),
# FRESH_CACHE_DAYS (make the bare root again when the cached one is older, default 30), FRESH_NO_CACHE=1
# (no apt-archives or ccache cache). CI and the proxy variables are passed into the root, and CCACHE_DIR
# when the compiler cache is mounted; nothing else of the caller's environment is.
# Exit code: 0 when every step passed; otherwise the failing step is named and the code is non-zero.
set -uo pipefail
# The whole script is one { ... } block, which bash reads completely before running any of it: editing or
# checking out another version of this file during a run (an hour long) cannot change what the run does.
{
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
suite=bookworm
backends=(optimized onednn xnnpack libtorch opencv armnn)  # every bundled backend (scripts/main.sh)
configure_only=0
case "${1:-}" in
  "") ;;
  --configure-only) configure_only=1 ;;
  *) echo "usage: bash scripts/fresh-machine.sh [--configure-only]" >&2; exit 2 ;;
esac

if [ "$(id -u)" != 0 ]; then
  echo "fresh-machine: must run as root (debootstrap, chroot and mount need it): sudo bash scripts/fresh-machine.sh" >&2
  exit 2
fi
cache_dir=${FRESH_CACHE_DIR:-/var/cache/convcheck}
cache_days=${FRESH_CACHE_DAYS:-30}
work_parent=${FRESH_WORK_DIR:-/var/tmp}
keep=${FRESH_KEEP:-0}
no_cache=${FRESH_NO_CACHE:-0}
case "$work_parent$cache_dir" in
  *[[:space:]]*) echo "fresh-machine: FRESH_WORK_DIR and FRESH_CACHE_DIR must not contain spaces" >&2; exit 2 ;;
esac
case "$cache_days" in
  "" | *[!0-9]*) echo "fresh-machine: FRESH_CACHE_DAYS='$cache_days': must be a whole number of days" >&2; exit 2 ;;
esac
case "$keep" in
  0 | 1) ;;
  *) echo "fresh-machine: FRESH_KEEP='$keep': must be 0 or 1" >&2; exit 2 ;;
esac
case "$no_cache" in
  0 | 1) ;;
  *) echo "fresh-machine: FRESH_NO_CACHE='$no_cache': must be 0 or 1" >&2; exit 2 ;;
esac
mkdir -p "$work_parent" "$cache_dir" || exit 2
work=$(mktemp -d "$work_parent/convcheck-fresh.XXXXXX") || exit 2
work=$(cd "$work" && pwd -P)
echo $$ >"$work/run.pid"
root=$work/root

# --- bookkeeping: step times, the failing step, cleanup -------------------------------------------------

step_names=()
step_times=()
failed_step=""
current_step="setup"
run_start=$SECONDS

report_times() {
  echo
  echo "fresh-machine: step times"
  local i
  for i in "${!step_names[@]}"; do printf '  %-44s %6s s\n' "${step_names[$i]}" "${step_times[$i]}"; done
  printf '  %-44s %6s s\n' "total" "$((SECONDS - run_start))"
}

# Mount points at or under $1, deepest first (from /proc/self/mountinfo; our paths have no spaces).
mounts_under() {
  awk -v d="$1" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r
}

# Ends the processes whose root directory is in $1 (ours: started in the chroot), TERM then KILL.
end_processes_in() {
  local signal pid pids
  for signal in TERM KILL; do
    pids=()
    for pid in /proc/[0-9]*; do
      case "$(readlink "$pid/root" 2>/dev/null)" in "$1" | "$1"/*) pids+=("${pid#/proc/}") ;; esac
    done
    [ ${#pids[@]} -eq 0 ] && return 0
    echo "fresh-machine: ending ${#pids[@]} process(es) left in the root with SIG$signal"
    kill -s "$signal" "${pids[@]}" 2>/dev/null
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      sleep 1
      kill -0 "${pids[@]}" 2>/dev/null || break
    done
  done
}

# Unmounts everything at or under $1 (what this script and debootstrap mounted); retries a busy mount,
# then detaches it lazily. Returns non-zero if anything is still mounted there.
unmount_under() {
  local m
  for m in $(mounts_under "$1"); do
    for _ in 1 2 3 4 5; do
      umount "$m" 2>/dev/null && break
      sleep 1
    done
    mountpoint -q "$m" && umount -l "$m"
  done
  if [ -n "$(mounts_under "$1")" ]; then
    echo "fresh-machine: still mounted, left in place: $(mounts_under "$1" | tr '\n' ' ')" >&2
    return 1
  fi
}

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  local start=$SECONDS
  end_processes_in "$work"
  if ! unmount_under "$work"; then
    echo "fresh-machine: could not unmount everything under $work: not deleting it" >&2
    status=1
  elif rm -f "$work/run.pid" && [ "$keep" = 1 ]; then
    echo "fresh-machine: kept $work (FRESH_KEEP=1); delete it with: rm -rf --one-file-system $work"
  else
    rm -rf --one-file-system "$work"
  fi
  step_names+=("cleanup (unmount, delete the root)")
  step_times+=("$((SECONDS - start))")
  report_times
  if [ "$status" -eq 0 ] && [ -z "$failed_step" ]; then
    echo "fresh-machine: PASSED"
  else
    [ "$status" -eq 0 ] && status=1
    echo "fresh-machine: FAILED at step: ${failed_step:-cleanup} (exit $status)" >&2
  fi
  exit "$status"
}
# A run killed with SIGKILL runs no trap and leaves its root mounted: each run first ends what is left in
# such a root, unmounts it and deletes it. A root belongs to a run while its run.pid names a live process;
# cleanup removes run.pid once the root is unmounted, so a root kept with FRESH_KEEP=1 is not touched.
sweep_killed_roots() {
  local dir pid
  for dir in "$work_parent"/convcheck-fresh.*; do
    [ -f "$dir/run.pid" ] || continue
    dir=$(cd "$dir" && pwd -P) && [ "$dir" != "$work" ] || continue
    pid=$(cat "$dir/run.pid")
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && continue
    echo "fresh-machine: $dir is left by a run that was killed (pid $pid): ending, unmounting, deleting it"
    end_processes_in "$dir"
    if unmount_under "$dir"; then
      rm -rf --one-file-system "$dir"
    else
      echo "fresh-machine: could not unmount everything under $dir: left in place" >&2
    fi
  done
}
sweep_killed_roots
trap cleanup EXIT
trap 'failed_step=${failed_step:-"$current_step (interrupted by SIGINT)"}; exit 130' INT
trap 'failed_step=${failed_step:-"$current_step (interrupted by SIGTERM)"}; exit 143' TERM

# run_step NAME FUNCTION...: runs and times one step; on failure records it and exits (cleanup follows).
run_step() {
  local name=$1 start=$SECONDS code=0
  shift
  current_step=$name
  echo
  echo "==== fresh-machine: $name"
  "$@" || code=$?
  step_names+=("$name")
  step_times+=("$((SECONDS - start))")
  if [ $code -ne 0 ]; then
    failed_step=${failed_step:-$name}
    exit $code
  fi
}

# --- the steps -------------------------------------------------------------------------------------------

apt_options=(-o Acquire::Retries=5 -o Acquire::http::Timeout=60 -o Acquire::https::Timeout=60)

host_tools() {
  local missing=() p
  for p in debootstrap debian-archive-keyring; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "fresh-machine: installing ${missing[*]} on the host"
  apt-get "${apt_options[@]}" update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get "${apt_options[@]}" install -y -qq --no-install-recommends "${missing[@]}"
}

# The host's Debian repositories for $suite (URI suite component), from apt itself; deb.debian.org when
# the host has none (another distribution, or `stable` instead of the code name).
host_repositories() {
  local lines
  # shellcheck disable=SC2016  # apt's own $(FIELD) placeholders
  lines=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 2>/dev/null |
          awk -v s="$suite" '$2 == s || $2 == s "-updates" || $2 == s "-security"' | sort -u)
  if [ -z "$lines" ] || ! grep -q " $suite " <<<"$lines"; then
    lines="http://deb.debian.org/debian/ $suite main
http://deb.debian.org/debian/ $suite-updates main
http://deb.debian.org/debian-security/ $suite-security main"
  fi
  echo "$lines"
}

bootstrap_once() {
  local target=$1 mirror=$2
  debootstrap --variant=minbase "$suite" "$target" "$mirror" >"$work/debootstrap.log" 2>&1 && return 0
  tail -n 30 "$work/debootstrap.log"
  return 1
}

# The cached bare root; made (debootstrap, retried once) when missing or older than $cache_days days.
bare_root() {
  local arch cache mirror tmp
  arch=$(dpkg --print-architecture) || return 1
  cache=$cache_dir/debian-$suite-minbase-$arch.tar.gz
  if [ -s "$cache" ] && [ -z "$(find "$cache" -mtime +"$cache_days")" ]; then
    echo "fresh-machine: using the cached bare root $cache ($(date -r "$cache" '+%F %R'))"
  else
    mirror=$(host_repositories | awk -v s="$suite" '$2 == s { print $1; exit }')
    echo "fresh-machine: debootstrap --variant=minbase $suite from $mirror (log: $work/debootstrap.log)"
    tmp=$work/bootstrap
    if ! bootstrap_once "$tmp" "$mirror"; then
      echo "fresh-machine: debootstrap failed; trying once more in 10 s"
      unmount_under "$tmp" && rm -rf --one-file-system "$tmp" || return 1
      sleep 10
      bootstrap_once "$tmp" "$mirror" || return 1
    fi
    unmount_under "$tmp" || return 1
    tar -C "$tmp" --numeric-owner -czf "$cache.tmp.$$" . && mv "$cache.tmp.$$" "$cache" || return 1
    rm -rf --one-file-system "$tmp"
    echo "fresh-machine: cached the bare root in $cache"
  fi
  mkdir "$root" && tar -C "$root" --numeric-owner -xpzf "$cache" && [ -x "$root/usr/bin/apt-get" ] && return 0
  echo "fresh-machine: the cached root $cache is damaged; it is made again on the next run" >&2
  rm -f "$cache"
  return 1
}

mount_one() {  # mount_one TARGET ARGS...: mount, or name what failed
  local target=$1
  shift
  mkdir -p "$target" && mount "$@" "$target" && return 0
  echo "fresh-machine: could not mount $* on $target" >&2
  return 1
}

tree_and_mounts() {
  git -C "$repo" diff --quiet HEAD 2>/dev/null ||
    echo "fresh-machine: note: the checkout has uncommitted changes; only the commit $(git -C "$repo" rev-parse --short HEAD) is proved"
  mkdir -p "$root/root/convcheck" &&
    git -C "$repo" archive --format=tar HEAD | tar -x -C "$root/root/convcheck" || return 1
  echo "fresh-machine: commit $(git -C "$repo" rev-parse HEAD) in /root/convcheck"
  host_repositories | awk '{ print "deb " $1 " " $2 " " $3 }' >"$root/etc/apt/sources.list" || return 1
  rm -f "$root/etc/apt/sources.list.d/"*
  echo "fresh-machine: apt sources in the root:" && sed 's/^/  /' "$root/etc/apt/sources.list"
  # The host's network settings: name resolution, and apt's proxy and date checks (a snapshot mirror).
  cp -L /etc/resolv.conf "$root/etc/resolv.conf" || return 1
  apt-config dump | grep -E '^Acquire::(https?|ftp)::Proxy |^Acquire::Check-(Valid-Until|Date) ' \
    >"$root/etc/apt/apt.conf.d/00host-network"
  # No service starts inside the root while packages install; dpkg skips its fsync calls (a throw-away
  # root, as in Debian's container images: changes nothing that is installed, only how fast).
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d" && chmod 755 "$root/usr/sbin/policy-rc.d" &&
    echo force-unsafe-io >"$root/etc/dpkg/dpkg.cfg.d/fresh-machine-unsafe-io" || return 1

  mount_one "$root/proc" -t proc proc || return 1
  mount_one "$root/sys" -t sysfs -o ro,nosuid,nodev,noexec sysfs || return 1
  # A minimal /dev of its own (as container runtimes make), never the host's: nothing done in the root
  # can touch the host's devices, and deleting the root cannot either.
  mount_one "$root/dev" -t tmpfs -o mode=755,nosuid,size=1m tmpfs || return 1
  local node name major minor
  for node in "null 1 3" "zero 1 5" "full 1 7" "random 1 8" "urandom 1 9" "tty 5 0"; do
    read -r name major minor <<<"$node"
    mknod -m 666 "$root/dev/$name" c "$major" "$minor" || return 1
  done
  ln -s /proc/self/fd "$root/dev/fd" && ln -s /proc/self/fd/0 "$root/dev/stdin" &&
    ln -s /proc/self/fd/1 "$root/dev/stdout" && ln -s /proc/self/fd/2 "$root/dev/stderr" || return 1
  mount_one "$root/dev/pts" -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts || return 1
  ln -s pts/ptmx "$root/dev/ptmx" || return 1
  mount_one "$root/dev/shm" -t tmpfs -o mode=1777,nosuid,nodev tmpfs || return 1
  if [ "$no_cache" = 0 ]; then
    mkdir -p "$cache_dir/apt-archives/partial" "$cache_dir/ccache" || return 1
    echo "fresh-machine: caches kept between runs: $cache_dir/apt-archives ($(du -sh "$cache_dir/apt-archives" | cut -f1)), $cache_dir/ccache ($(du -sh "$cache_dir/ccache" | cut -f1))"
    mount_one "$root/var/cache/apt/archives" --bind "$cache_dir/apt-archives" || return 1
    mount_one "$root/var/cache/ccache" --bind "$cache_dir/ccache" || return 1
  else
    echo "fresh-machine: FRESH_NO_CACHE=1: no apt-archives or compiler cache"
  fi
  echo "fresh-machine: mounted $(mounts_under "$root" | sort | sed "s|^$root||" | tr '\n' ' ')"
}

# in_root COMMAND: runs a shell command as root in the root, from /root/convcheck, with a newcomer's
# environment (plus CI and the proxy variables). In the background, so that an interrupt is handled at
# once (bash runs traps only between foreground commands) and cleanup ends what is left in the root.
in_root() {
  local env=(HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
  local v
  for v in CI http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
    [ -n "${!v+x}" ] && env+=("$v=${!v}")
  done
  [ "$no_cache" = 0 ] && env+=(CCACHE_DIR=/var/cache/ccache)
  echo "fresh-machine: in the root, as root, from /root/convcheck: $1"
  chroot "$root" /usr/bin/env -i "${env[@]}" /bin/bash -c "cd /root/convcheck && $1" &
  wait $!
}

configure_in_root() {
  in_root "bash scripts/setup.sh" || return 1
  in_root "cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCONVCHECK_WERROR=ON"
}

# Every bundled backend is built (after main.sh) or at least configured (--configure-only): a package whose
# CMake config fails quietly would otherwise drop its plugin, and main.sh would run fewer backends.
check_backends() {
  local name missing=() targets=$root/root/convcheck/build/fresh-machine-targets.txt
  if [ "$configure_only" = 1 ]; then
    in_root "cmake --build build --target help >build/fresh-machine-targets.txt" || return 1
  fi
  for name in "${backends[@]}"; do
    if [ "$configure_only" = 1 ]; then
      grep -q "^convcheck_plugin_$name:" "$targets" || missing+=("$name")
    else
      [ -f "$root/root/convcheck/build/plugins/libconvcheck_plugin_$name.so" ] || missing+=("$name")
    fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "fresh-machine: bundled backend plugin(s) not built in the fresh root: ${missing[*]} (see the CMake configure output)" >&2
    return 1
  fi
  echo "fresh-machine: every bundled backend plugin is built: ${backends[*]}"
}

check_report() {
  local report=$root/root/convcheck/build/report.html
  if [ ! -s "$report" ]; then
    echo "fresh-machine: build/report.html is missing or empty after bash scripts/main.sh" >&2
    return 1
  fi
  echo "fresh-machine: build/report.html written ($(stat -c %s "$report") bytes)"
}

run_step "host tools (debootstrap)" host_tools
run_step "bare Debian 12 root (minbase)" bare_root
run_step "committed tree and mounts" tree_and_mounts
if [ $configure_only = 1 ]; then
  run_step "bash scripts/setup.sh; cmake configure" configure_in_root
  run_step "every bundled backend configured" check_backends
else
  run_step "bash scripts/test.sh" in_root "bash scripts/test.sh"
  run_step "bash scripts/main.sh" in_root "bash scripts/main.sh"
  run_step "report and backends" eval "check_report && check_backends"
fi
exit 0
}
