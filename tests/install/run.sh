#!/usr/bin/env bash
# Installs the build into a temporary prefix with DESTDIR, then builds
# app.c against what was installed, as a user would: with pkg-config
# (linked to the shared library, then statically) and with
# find_package(aflame) (aflame::aflame and aflame::aflame_static), and runs
# each program and the installed command on the bundled sample, and reads
# the installed man page.
#   run.sh SOURCE_DIR BUILD_DIR TMP_DIR CC [CFLAGS]
# CFLAGS are the sanitizer flags of a sanitized build (its library needs
# them in the programs too).
set -euo pipefail
src=$1 build=$2 tmp=$3/install cc=$4 cflags=${5:-}
sample=$src/samples/app.trace

fail() { echo "install: $*" >&2; exit 1; }
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
# run PROGRAM LINKAGE: it draws the sample; LINKAGE is shared or static
run() {
  local prog=$1 linkage=$2 out deps loaded
  out=$("$prog" "$sample" "$prog.svg") || fail "$prog failed"
  [[ $out =~ ^[0-9]+\ threads,\ [0-9]+\ frames\ drawn$ ]] || fail "$prog printed: $out"
  grep -q '</svg>' "$prog.svg" || fail "$prog wrote no whole SVG"
  # (whole outputs in variables: grep -q closing a pipe early would fail
  # the pipeline under pipefail)
  deps=$(needed "$prog")
  if [ "$linkage" = shared ]; then
    grep -qx 'libaflame\.so\.0' <<<"$deps" || fail "$prog does not load libaflame.so.0"
    loaded=$(ldd "$prog")
    grep -q "libaflame\.so\.0 => $libdir/" <<<"$loaded" || fail "$prog loads another libaflame:
$loaded"
  else
    ! grep -q libaflame <<<"$deps" || fail "$prog is linked to the shared library"
  fi
  echo "ok: $prog ($linkage): $out"
}

rm -rf "$tmp"
mkdir -p "$tmp"
# A sanitized build: LeakSanitizer is told of the leaks of Debian's
# fontconfig and cairo that Pango brings in (see render/pango.c).  The
# library names them itself to a program it is linked into; the shared
# library keeps that list to itself (it exports only af_*), so a program
# that loads it gives the list, as its user would, here.
if [ -n "$cflags" ]; then
  printf 'leak:libfontconfig.so\nleak:libcairo.so\n' >"$tmp/lsan.supp"
  export LSAN_OPTIONS="suppressions=$tmp/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
fi
# a prefix nobody has, so nothing is found by accident
prefix=/opt/aflame-install-test
root=$tmp/dest$prefix
DESTDIR=$tmp/dest cmake --install "$build" --prefix "$prefix" >/dev/null

pc=$(find "$root" -name aflame.pc)
[ -n "$pc" ] || fail "no aflame.pc installed"
! grep -q "$prefix\|$tmp" "$pc" || fail "aflame.pc names an absolute path:
$(cat "$pc")"
export PKG_CONFIG_PATH=${pc%/*} AFLAME_FONTCONF=$root/share/aflame/fonts.conf
[ -f "$AFLAME_FONTCONF" ] || fail "no fonts.conf installed"
libdir=$(cd "$(pkg-config --variable=libdir aflame)" && pwd -P)
[ "$libdir" = "$(cd "${pc%/*}/.." && pwd -P)" ] || fail "aflame.pc's libdir is $libdir"
[ -f "$libdir/libaflame.a" ] || fail "no libaflame.a in $libdir"
[ "$(readlink "$libdir/libaflame.so")" = libaflame.so.0 ] || fail "libaflame.so is no link to libaflame.so.0"
real=$(readlink "$libdir/libaflame.so.0")
[[ $real =~ ^libaflame\.so\.0\.[0-9]+\.[0-9]+$ ]] || fail "libaflame.so.0 points to $real"
soname=$(readelf -d "$libdir/$real")
grep -q 'SONAME.*\[libaflame\.so\.0\]' <<<"$soname" || fail "$real has no soname libaflame.so.0"
# the shared library exports the API and nothing else
exported=$(nm -D --defined-only "$libdir/$real" | awk '$2 == "T" {print $3}' | sed 's/@.*//')
! grep -vq '^af_' <<<"$exported" || fail "exports other than af_*: $(grep -v '^af_' <<<"$exported")"
grep -qx af_trace_open <<<"$exported" || fail "af_trace_open is not exported"
! grep -qx af_tree_name_by_id <<<"$exported" || fail "an internal function is exported"

# pkg-config: shared, then static
cd "$tmp"
# shellcheck disable=SC2046,SC2086
"$cc" $cflags -o app-pkgconfig "$src/tests/install/app.c" $(pkg-config --cflags --libs aflame) \
  -Wl,-rpath,"$libdir"
run "$tmp/app-pkgconfig" shared
# shellcheck disable=SC2046,SC2086
"$cc" $cflags -o app-pkgconfig-static "$src/tests/install/app.c" $(pkg-config --cflags aflame) \
  $(pkg-config --static --libs aflame | sed 's/-laflame\b/-l:libaflame.a/')
run "$tmp/app-pkgconfig-static" static

# find_package(aflame)
for kind in shared static; do
  cmake -S "$src/tests/install" -B "$tmp/cmake-$kind" -DCMAKE_PREFIX_PATH="$root" \
        -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$cflags" -DCMAKE_BUILD_TYPE=Release \
        -DAF_STATIC=$([ $kind = static ] && echo ON || echo OFF) >/dev/null
  cmake --build "$tmp/cmake-$kind" >/dev/null
  run "$tmp/cmake-$kind/app" $kind
done

# the installed command
version=$("$root/bin/aflame-render" --version)
[[ $version =~ ^aflame-render\ [0-9] ]] || fail "aflame-render --version: $version"
"$root/bin/aflame-render" -o "$tmp/command.svg" "$sample" || fail "aflame-render failed"
grep -q '</svg>' "$tmp/command.svg" || fail "aflame-render wrote no whole SVG"
echo "ok: $root/bin/aflame-render"

# the installed server, which the command finds in its libexec folder; at
# start it draws the sample with the command (run back from there)
data=$tmp/serve-data
"$root/bin/aflame-render" serve --listen 127.0.0.1:0 --data "$data" 2>"$tmp/serve.log" &
pid=$!
for _ in $(seq 600); do
  grep -q 'serving http' "$tmp/serve.log" && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
kill "$pid" 2>/dev/null || true
wait "$pid" || true
grep -q 'serving http://127\.0\.0\.1:' "$tmp/serve.log" ||
  fail "aflame-render serve did not start: $(cat "$tmp/serve.log")"
sets=("$data"/traces/*/set/index.html)
[ -f "${sets[0]}" ] || fail "the installed server drew no set of the sample: $(cat "$tmp/serve.log")"
echo "ok: $root/bin/aflame-render serve"

# its man page, made from the same table of options as --help
man1=$root/share/man/man1/aflame-render.1
[ -f "$man1" ] || fail "no man page in share/man/man1"
grep -q '^\.TH AFLAME\\-RENDER 1 ' "$man1" || fail "$man1 is no man page"
if command -v man >/dev/null; then
  page=$(LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$man1" 2>&1) || fail "man -l $man1 failed"
  grep -q -- '--max-memory SIZE' <<<"$page" || fail "man -l $man1 shows no options:
$page"
fi
echo "ok: $man1"
