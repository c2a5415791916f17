#!/bin/sh
# The main job on the bundled example: make the example repository, then
# build, verify and describe a wheel with the demo profile.
set -eu
cd "$(dirname "$0")/.."
before=$(cat build/example/minitorch.git.stamp 2>/dev/null || true)
sh scripts/make-example-repo.sh tests/fixtures/minitorch build/example/minitorch.git v2.11.0
# The mirrors are the ones every later `bin/bwbuild --profile demo` reads (the
# user's cache); a remade example moved its tags, so they are fetched again.
fetch=""
[ "$before" = "$(cat build/example/minitorch.git.stamp)" ] || fetch=--fetch
start=$(date +%s)
bin/bwbuild --profile demo --out out/demo --work work/demo $fetch
echo "demo: wall time $(( $(date +%s) - start )) s" >&2
