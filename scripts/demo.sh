#!/bin/sh
# The main job on the bundled example: make the example repository, then
# build, verify and describe a wheel with the demo profile.
set -eu
cd "$(dirname "$0")/.."
sh scripts/make-example-repo.sh tests/fixtures/minitorch build/example/minitorch.git v2.11.0
# The example's mirrors live beside it, not in ~/.cache: the script moves its tags.
export BWBUILD_CACHE_DIR="$PWD/build/example/cache"
start=$(date +%s)
bin/bwbuild --profile demo --out out/demo --work work/demo
echo "demo: wall time $(( $(date +%s) - start )) s" >&2
