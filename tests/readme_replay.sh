#!/usr/bin/env bash
# Replay the README as a new user would, on a fresh clone of this repository
# (its committed HEAD): the README must open with exactly the two commands;
# the first (scripts/run-demo) runs verbatim, its set-up time printed; then
# the command the demo's "Next:" line prints, and the README's command-line
# recipe (the block after "<!-- tests/readme_replay.sh runs the next block
# -->") verbatim in a scratch directory, checking that the README shows the
# --view output this build prints.  The library recipe is replayed by
# tests/install_example.sh (ctest); scripts/run-tests is the CI's own suite.
# kryl is installed into a temporary prefix put first on the PATH, as
# scripts/setup says to do for a prefix the PATH does not search.
#   usage: tests/readme_replay.sh [SOURCE_DIR]   (default: this checkout)
set -euo pipefail

src=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/..}" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kryl-replay.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "readme_replay: FAILED: $*" >&2
    exit 1
}

git clone --quiet --no-hardlinks "$src" "$tmp/kryl"
cd "$tmp/kryl"

# The README opens with a shell block of exactly the two commands.
awk 'NR == 1 && !/^```sh$/ { exit 1 } NR > 1 && /^```/ { exit } NR > 1 { print }' README.md \
    >"$tmp/first.sh" || fail "README.md does not open with a shell block"
grep -v '^[[:space:]]*$' "$tmp/first.sh" >"$tmp/first-commands.sh" || true
if [[ $(wc -l <"$tmp/first-commands.sh") -ne 2 ]] ||
    ! head -n 1 "$tmp/first-commands.sh" | grep -q '^scripts/run-demo' ||
    ! tail -n 1 "$tmp/first-commands.sh" | grep -q '^scripts/run-tests'; then
    cat "$tmp/first.sh"
    fail "README.md's first block is not the two commands scripts/run-demo, scripts/run-tests"
fi

export KRYL_PREFIX=$tmp/prefix PATH=$tmp/prefix/bin:$PATH
first=$(head -n 1 "$tmp/first-commands.sh")
echo "--- $first"
start=$(date +%s)
bash -e -c "$first" >"$tmp/demo.out" 2>"$tmp/demo.err" || {
    cat "$tmp/demo.err" "$tmp/demo.out"
    fail "the README's first command"
}
took=$(($(date +%s) - start))
grep 'set-up took' "$tmp/demo.err" || true
cat "$tmp/demo.out"
echo "readme_replay: the README's first command took ${took} s from a fresh clone"

# The demo's "Next:" line, as printed.
next=$(sed -n 's/^Next: //p' "$tmp/demo.out")
[[ -n $next ]] || fail "the demo printed no 'Next:' line"
mkdir -p "$tmp/work"
echo "--- $next"
(cd "$tmp/work" && bash -e -c "$next") >"$tmp/next.out" 2>&1 || {
    cat "$tmp/next.out"
    fail "the demo's Next: command"
}
tail -n 4 "$tmp/next.out"

# The README's command-line recipe, verbatim.
bash tests/readme_block.sh README.md "tests/readme_replay.sh runs the next block" \
    >"$tmp/work/recipe.sh" || fail "no block marked for tests/readme_replay.sh in README.md"
echo "--- README.md, verbatim:"
cat "$tmp/work/recipe.sh"
(cd "$tmp/work" && bash -e recipe.sh) >"$tmp/recipe.out" 2>&1 || {
    cat "$tmp/recipe.out"
    fail "the README's command-line recipe"
}
# The README's excerpt of --view is what this build prints (the backend line aside).
awk '/^solver stack$/ { on = 1 } on && /^monitor/ { exit } on && !/^  backend/ { print }' \
    README.md >"$tmp/view.expected"
[[ -s $tmp/view.expected ]] || fail "README.md shows no --view output"
while IFS= read -r line; do
    grep -Fxq -- "$line" "$tmp/recipe.out" || {
        cat "$tmp/recipe.out"
        fail "README.md shows '$line', which --view no longer prints"
    }
done <"$tmp/view.expected"
pictures=$(cd "$tmp/work" && find . -maxdepth 1 -name '*.svg' -size +0 | sort | tr '\n' ' ')
[[ -n $pictures ]] || fail "the recipe drew no SVG picture"
echo "readme_replay: the recipe drew $pictures"
echo "readme_replay: the first command, the demo's Next: line and the recipe ran" \
    "($(($(date +%s) - start)) s in all)"
