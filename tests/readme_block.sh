#!/bin/sh
# Print the shell block of README.md that follows the comment line naming
# MARKER ("<!-- tests/readme_replay.sh runs the next block -->"), verbatim;
# fails when there is none.
#   usage: sh readme_block.sh README.md MARKER
set -eu
awk -v marker="$2" 'index($0, marker) { armed = 1; next }
     armed && /^```sh/ { inside = 1; next }
     inside && /^```/ { found = 1; exit }
     inside { print }
     END { exit found ? 0 : 1 }' "$1"
