#!/usr/bin/env bash
# make clean: remove build/, unless build/linux holds work not in series/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
guard_tree_work "remove it"
rm -rf "$BUILD"
say "removed build/ (ccache keeps compiled objects: $(ccache -k cache_dir 2>/dev/null || echo ~/.ccache))"
