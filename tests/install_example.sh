#!/bin/sh
# Install a built kryl tree into a temporary prefix, build examples/ against
# it four ways and run each program; any failure fails the test:
#   - the README's two commands (pkg-config and CMake, shared library),
#     verbatim: the shell block after the line naming this script
#   - CMake with kryl::kryl_static, and `pkg-config --static`
#   usage: sh install_example.sh SOURCE_DIR BUILD_DIR
#   env:   KRYL_C_COMPILER  the C compiler the library was built with (default cc)
# Exit status 77 (skipped) when cmake is absent.
set -eu

if [ $# -ne 2 ]; then
    echo "usage: sh install_example.sh SOURCE_DIR BUILD_DIR" >&2
    exit 2
fi
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
cc=${KRYL_C_COMPILER:-cc}

if ! command -v cmake >/dev/null 2>&1; then
    echo "install_example: cmake not found, skipped"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kryl-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
passed=0

# Run a command quietly; on failure show its output and stop.
quiet() {
    what=$1
    shift
    if ! "$@" >"$tmp/log" 2>&1; then
        cat "$tmp/log"
        echo "install_example: FAILED: $what" >&2
        exit 1
    fi
}

# Run an example program; it prints its result and exits 0 only if it converged.
run_example() {
    what=$1
    shift
    echo "--- $what"
    if ! "$@"; then
        echo "install_example: FAILED: $what exited with a non-zero status" >&2
        exit 1
    fi
    passed=$((passed + 1))
}

# A library built with sanitizers needs its runtime in every program that links it.
extra_flags=""
if grep -q '^KRYL_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
    extra_flags="-fsanitize=address,undefined -fno-omit-frame-pointer"
fi

quiet "cmake --install $build --prefix $prefix" cmake --install "$build" --prefix "$prefix"
echo "installed into $prefix"

# The README's commands, verbatim, in a copy of examples/, with the tools
# pointed at the prefix as the README says for a prefix they do not search;
# `cc` is the library's compiler (with the sanitizer flags it was built with).
pc=$(find "$prefix" -name kryl.pc | head -n 1)
if command -v pkg-config >/dev/null 2>&1 && [ -n "$pc" ]; then
    readme=$tmp/readme
    mkdir -p "$readme/bin"
    cp -r "$src/examples" "$readme/"
    # the wrapper calls the compiler by its full path, not itself
    printf '#!/bin/sh\nexec %s %s "$@"\n' "$(command -v "$cc")" "$extra_flags" >"$readme/bin/cc"
    chmod +x "$readme/bin/cc"
    if ! sh "$src/tests/readme_block.sh" "$src/README.md" \
        "tests/install_example.sh runs the next block" >"$readme/commands.sh" ||
        [ ! -s "$readme/commands.sh" ]; then
        echo "install_example: FAILED: no command block in README.md" >&2
        exit 1
    fi
    echo "--- README.md, verbatim:"
    cat "$readme/commands.sh"
    if ! (cd "$readme" && PATH="$readme/bin:$PATH" PKG_CONFIG_PATH=$(dirname "$pc") \
        CMAKE_PREFIX_PATH="$prefix" sh -e commands.sh >"$tmp/log" 2>&1); then
        cat "$tmp/log"
        echo "install_example: FAILED: the README's commands" >&2
        exit 1
    fi
    grep -v '^--\|^\[' "$tmp/log" || true
    passed=$((passed + 2))
else
    echo "install_example: pkg-config or kryl.pc missing, the README's commands are skipped"
fi

# CMake: find_package(kryl) from the install prefix, the static library.
dir=$tmp/cmake-static
quiet "configure the example (static, CMake)" \
    cmake -S "$src/examples" -B "$dir" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$extra_flags" \
    -DCMAKE_PREFIX_PATH="$prefix" -DKRYL_EXAMPLE_STATIC=ON
quiet "build the example (static, CMake)" cmake --build "$dir"
run_example "CMake, kryl::kryl_static" "$dir/poisson_assembly"

# pkg-config: the example's Makefile, shared then static.
if ! command -v pkg-config >/dev/null 2>&1; then
    echo "install_example: pkg-config not found, the pkg-config builds are skipped"
elif ! command -v make >/dev/null 2>&1; then
    echo "install_example: make not found, the pkg-config builds are skipped"
else
    pc=$(find "$prefix" -name kryl.pc | head -n 1)
    if [ -z "$pc" ]; then
        echo "install_example: FAILED: no kryl.pc under $prefix" >&2
        exit 1
    fi
    PKG_CONFIG_PATH=$(dirname "$pc")
    export PKG_CONFIG_PATH
    echo "pkg-config --static --libs kryl: $(pkg-config --static --libs kryl)"
    dir=$tmp/pkg-config
    mkdir -p "$dir"
    cp "$src/examples/poisson_assembly.c" "$src/examples/Makefile" "$dir/"
    quiet "build the example (pkg-config --static)" \
        make -C "$dir" CC="$cc" CFLAGS="-O2 $extra_flags" static
    if command -v readelf >/dev/null 2>&1 &&
        readelf -d "$dir/poisson_assembly_static" | grep -q 'libkryl'; then
        echo "install_example: FAILED: the static build still needs libkryl.so" >&2
        exit 1
    fi
    run_example "pkg-config, static" "$dir/poisson_assembly_static"
fi

echo "install_example: $passed builds of the example ran and converged"
