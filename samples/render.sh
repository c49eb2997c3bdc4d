#!/usr/bin/env bash
# Re-renders every picture in samples/ (and samples/app.svg) from the repo:
# builds aflame-render and make_samples (Release, in build/ unless
# AFLAME_BUILD names another folder), rewrites the sample traces and the
# mapping file, then draws each README picture with the command the README
# gives for it.  The screenshots of the index page and of the HTML profile
# need Chromium and playwright-core (npm ci in tests/browser); without them
# they are left as they are.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${AFLAME_BUILD:-$top/build}

cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target aflame-render make_samples >/dev/null
cd "$top"
"$build/make_samples" samples
r() { "$build/aflame-render" "$@"; }

r -o samples/app.svg samples/app.trace
r -o samples/app.png samples/app.trace
r --clock wait --min-share 1 --strip-package --width 900 \
  --title "Off-CPU time of samples/app.trace (wall minus thread-cpu)" \
  -o samples/app-wait.png samples/app.trace
r --diff samples/app.trace --width 900 \
  --title "samples/app-after.trace against samples/app.trace" \
  -o samples/diff.png samples/app-after.trace
r --focus 'Choreographer\.doFrame$' --width 900 \
  --title "Choreographer.doFrame from every caller (--focus)" \
  -o samples/focus.png samples/app.trace
r --focus 'Choreographer\.doFrame$' --collapse-recursion --strip-package --width 900 \
  --title "The same with --collapse-recursion --strip-package" \
  -o samples/focus-collapsed.png samples/app.trace
r --thread main --exclude 'MessageQueue\.next$' --width 900 \
  --title "The main thread without its idle loop (--exclude)" \
  -o samples/busy.png samples/app.trace
r --mapping samples/app-mapping.txt --thread pool-1-thread-1 --width 900 \
  --title "A release build's worker thread, deobfuscated (--mapping)" \
  -o samples/release.png samples/app-obfuscated.trace
r --call-graph --scale 0.8 -o samples/callgraph.png samples/app.trace

set_dir=$(mktemp -d)
trap 'rm -rf "$set_dir"' EXIT
r --per-thread -o "$set_dir" samples/app.trace
if ! node samples/screenshot.mjs "$set_dir/index.html" samples/index.png 1100 720; then
	echo "render.sh: samples/index.png left as it was" >&2
fi
r --report "$set_dir/profile.html" --report-format html samples/app.trace
if ! node samples/screenshot.mjs "$set_dir/profile.html" samples/profile.png 1100 560 '#m5'; then
	echo "render.sh: samples/profile.png left as it was" >&2
fi
ls -l samples/*.png samples/app.svg
