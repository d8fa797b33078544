#!/usr/bin/env bash
# Intel's production shader compiler (anv + brw) on a simulated GPU, cached outside the repository.
#
#   scripts/mesa.sh            # prints the environment the `anv` target reads, and names the
#                              # second Mesa's (22.3.6, for the proof re-runs)
#   scripts/mesa.sh --debug    # also builds anv itself, debugoptimized (assertions and NIR
#                              # validation on; LLVM/clang 15 for mesa_clc; long: nice -n 19,
#                              # -j2), and prints the environment naming it (anv-debug.env;
#                              # use it with GPUFUZZ_ANV_ENV=<that file>)
#
# Mesa's drm-shim answers anv's kernel calls, so anv enumerates an Intel GPU of our choice
# (INTEL_STUB_GPU_PLATFORM=skl|tgl|dg2|mtl|lnl|bmg) and compiles pipelines while submissions do
# nothing. Debian packages no Intel shim, so this script builds it from the same Mesa version's
# source; the driver itself is Debian's release anv, unpacked by scripts/mesa-backports.sh.
#
# Steps, each skipped when its output exists (a second run does nothing and takes seconds):
#   1. a private apt configuration (the system's sources plus deb-src and backports lines derived
#      from them; the system's apt configuration is never changed);
#   2. the build dependencies, installed with apt (meson from backports: Mesa 25 needs >= 1.1);
#   3. Mesa's source tarball via `apt-get source --download-only`;
#   4. the Intel noop drm-shim, built with meson/ninja (only that target);
#   5. the release anv (scripts/mesa-backports.sh) and an ICD manifest naming it;
#   6. the second Mesa: Debian bookworm's own anv and radv (22.3.6), the system's when its
#      mesa-vulkan-drivers is that version, else that package unpacked into the cache; the
#      25.0.7 shims serve it too. It gets ICD manifests, anv.env and radv.env of its own;
#   7. with --debug: anv built from the same source with -Dbuildtype=debugoptimized, its ICD
#      manifest and anv-debug.env.
# Cache: ${GPUFUZZ_CACHE:-$HOME/.cache/gpufuzz}/mesa-$VERSION/ and mesa-$SECOND/.
set -euo pipefail

debug=0
case "${1:-}" in
"") ;;
--debug) debug=1 ;;
*)
	echo "usage: scripts/mesa.sh [--debug]" >&2
	exit 2
	;;
esac

VERSION=25.0.7
SECOND=22.3.6
here=$(cd "$(dirname "$0")" && pwd)
cache=${GPUFUZZ_CACHE:-$HOME/.cache/gpufuzz}
root=$cache/mesa-$VERSION
shim=$root/shim/libintel_noop_drm_shim.so
env_file=$root/anv.env
debug_env=$root/anv-debug.env
debug_lib=$root/build-anv/src/intel/vulkan/libvulkan_intel.so
second=$cache/mesa-$SECOND
second_env=$second/anv.env
codename=$(. /etc/os-release && echo "$VERSION_CODENAME")

say() { echo "mesa.sh: $*" >&2; }
die() {
	say "$*"
	exit 1
}

print_env() {
	cat "$env_file"
	echo "# the second Mesa, $SECOND (proof re-runs; radv.env beside it): $second_env"
}

if [ "$debug" = 0 ] && [ -f "$env_file" ] && [ -f "$shim" ] && [ -f "$second_env" ]; then
	print_env
	exit 0
fi
if [ "$debug" = 1 ] && [ -f "$debug_env" ] && [ -f "$debug_lib" ]; then
	cat "$debug_env"
	exit 0
fi
mkdir -p "$root"

# 1. Private apt configuration: the system's own sources (so installed versions resolve) plus one
#    stanza with the same archive and keyring for the backports suite, binaries and sources.
apt_dir=$cache/apt
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/none.list" -o "Dir::Etc::SourceParts=$apt_dir/sources.list.d"
	-o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o "APT::Get::List-Cleanup=0")
if [ ! -f "$apt_dir/updated" ]; then
	mkdir -p "$apt_dir/sources.list.d" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
	: >"$apt_dir/none.list"
	cp /etc/apt/sources.list.d/*.sources "$apt_dir/sources.list.d/" 2>/dev/null || true
	[ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$apt_dir/sources.list.d/system.list"
	# The stanza whose Suites name the release itself (not -security) gives archive and keyring.
	read -r uri keyring < <(awk -v rel="$codename" '
		/^[[:space:]]*$/ { if (ok && uri != "") { print uri, key; exit } ok = 0; uri = ""; key = ""; next }
		/^URIs:/ { uri = $2 }
		/^Signed-By:/ { key = $2 }
		/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == rel) ok = 1 }
		END { if (ok && uri != "") print uri, key }' /etc/apt/sources.list.d/*.sources) ||
		die "no deb822 stanza for '$codename' in /etc/apt/sources.list.d/*.sources"
	cat >"$apt_dir/sources.list.d/gpufuzz-mesa.sources" <<-EOF
		Types: deb deb-src
		URIs: $uri
		Suites: $codename-backports
		Components: main
		Signed-By: $keyring

		Types: deb-src
		URIs: $uri
		Suites: $codename
		Components: main
		Signed-By: $keyring
	EOF
	say "apt-get update (private lists in $apt_dir)"
	apt-get "${apt_opts[@]}" update -qq || die "apt-get update failed"
	touch "$apt_dir/updated"
fi

# 2. Build dependencies (system-wide, with apt; meson from backports).
deps=(ninja-build python3-mako python3-yaml python3-packaging libdrm-dev bison flex pkg-config
	zlib1g-dev libexpat1-dev xz-utils)
missing=()
for p in "${deps[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
meson_ok=$(/usr/bin/meson --version 2>/dev/null | awk -F. '{ print ($1 > 1 || ($1 == 1 && $2 >= 1)) }') || true
[ "${meson_ok:-0}" = 1 ] || missing+=("meson/$codename-backports")
if [ ${#missing[@]} -gt 0 ]; then
	say "apt-get install ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install -y -qq --no-install-recommends "${missing[@]}" >&2 ||
		die "apt-get install failed: ${missing[*]}"
fi

# 3. Source: the orig tarball of the backports version (its .dsc may be missing; the tarball is
#    all we need, so a failed apt-get source is fine when the tarball arrived).
src=$root/src
if [ ! -f "$src/meson.build" ]; then
	mkdir -p "$root/download"
	(cd "$root/download" && apt-get "${apt_opts[@]}" source --download-only "mesa/$codename-backports" >&2) ||
		say "apt-get source reported an error; using the tarball if it arrived"
	tarball=$(ls "$root/download"/mesa_"$VERSION".orig.tar.* 2>/dev/null | head -n 1)
	[ -n "$tarball" ] || die "no mesa_$VERSION.orig.tar.* in $root/download (is $codename-backports still at $VERSION?)"
	rm -rf "$src.tmp" && mkdir -p "$src.tmp"
	tar -xf "$tarball" -C "$src.tmp" --strip-components=1
	mv "$src.tmp" "$src"
fi

# 4. The Intel noop drm-shim, nothing else (the system python3 has mako; another one first on
#    PATH may not).
if [ ! -f "$shim" ]; then
	build=$root/build-shim
	if [ ! -f "$build/build.ninja" ]; then
		PATH=/usr/bin:/bin:$PATH meson setup "$build" "$src" -Dbuildtype=release \
			-Dgallium-drivers= -Dvulkan-drivers= -Dtools=drm-shim,intel -Dplatforms= \
			-Dglx=disabled -Degl=disabled -Dgles1=disabled -Dgles2=disabled -Dopengl=false \
			-Dllvm=disabled -Dzstd=disabled -Dvalgrind=disabled -Dlibunwind=disabled >&2 ||
			die "meson setup failed (log: $build/meson-logs/meson-log.txt)"
	fi
	say "building the Intel drm-shim (a few minutes)"
	PATH=/usr/bin:/bin:$PATH nice ninja -C "$build" src/intel/tools/libintel_noop_drm_shim.so >&2 ||
		die "ninja failed in $build"
	mkdir -p "$root/shim"
	cp "$build/src/intel/tools/libintel_noop_drm_shim.so" "$shim.tmp" && mv "$shim.tmp" "$shim"
fi

# 5. The release anv of the same version, unpacked by the backports script, which prints its
#    ICD manifests' paths (lvp, intel, radeon), one a line.
icd=$("$here/mesa-backports.sh" | grep '/intel\.json$' | head -n 1) || true
[ -f "$icd" ] || die "scripts/mesa-backports.sh gave no ICD manifest (got '$icd')"
grep -q libvulkan_intel "$icd" || die "$icd names no libvulkan_intel"

cat >"$env_file" <<-EOF
	GPUFUZZ_ANV_ICD=$icd
	GPUFUZZ_ANV_SHIM=$shim
	GPUFUZZ_ANV_MESA=$VERSION
EOF

# 6. The second Mesa. Measured: 22.3.6's anv enumerates skl with the 25.0.7 Intel shim and
#    prints the same listings (INTEL_DEBUG=hex); its radv enumerates the shim's GPUs to navi31.
libs=/usr/lib/x86_64-linux-gnu
installed=$(dpkg-query -W -f '${Version}' mesa-vulkan-drivers 2>/dev/null) || true
case "$installed" in
"$SECOND"-*) second_libs=$libs ;;
*)
	second_libs=$second/root$libs
	if [ ! -f "$second_libs/libvulkan_intel.so" ]; then
		package=$(apt-cache "${apt_opts[@]}" madison mesa-vulkan-drivers |
			awk -v v="$SECOND-" 'index($3, v) == 1 { print $3; exit }')
		[ -n "$package" ] || die "no mesa-vulkan-drivers $SECOND in the apt sources (the second Mesa is Debian bookworm's)"
		say "unpacking mesa-vulkan-drivers $package (the system has '${installed:-none}')"
		mkdir -p "$second/debs"
		(cd "$second/debs" && apt-get "${apt_opts[@]}" download "mesa-vulkan-drivers=$package" >&2) ||
			die "apt-get download mesa-vulkan-drivers=$package failed"
		dpkg -x "$(ls "$second"/debs/mesa-vulkan-drivers_*.deb | head -n 1)" "$second/root"
	fi
	;;
esac
[ -f "$second_libs/libvulkan_intel.so" ] || die "$second_libs/libvulkan_intel.so missing"
amdgpu_shim=$root/root$libs/libamdgpu_noop_drm_shim.so
[ -f "$amdgpu_shim" ] || die "$amdgpu_shim missing (scripts/mesa-backports.sh unpacks it)"
# Each file is written only when its text changes: a second run changes nothing.
write() { [ "$(cat "$1" 2>/dev/null)" = "$2" ] || printf '%s\n' "$2" >"$1"; }
mkdir -p "$second/icd"
for driver in intel radeon; do
	write "$second/icd/$driver.json" "{ \"file_format_version\": \"1.0.0\",
  \"ICD\": { \"library_path\": \"$second_libs/libvulkan_$driver.so\", \"api_version\": \"1.3.230\" } }"
done
write "$second_env" "GPUFUZZ_ANV_ICD=$second/icd/intel.json
GPUFUZZ_ANV_SHIM=$shim
GPUFUZZ_ANV_MESA=$SECOND"
write "$second/radv.env" "GPUFUZZ_RADV_ICD=$second/icd/radeon.json
GPUFUZZ_RADV_SHIM=$amdgpu_shim
GPUFUZZ_RADV_MESA=$SECOND"

if [ "$debug" = 0 ]; then
	print_env
	exit 0
fi

# 7. anv from source, debugoptimized: brw's assertions and validator and NIR validation on. Mesa
#    25 builds its OpenCL kernel compiler (mesa_clc) for anv's internal shaders, which needs
#    LLVM, clang and libclc 15 and the SPIR-V translator. The CPU is shared: nice -n 19, -j2.
deps=(llvm-15-dev libclang-15-dev libclang-cpp15-dev libclc-15 llvm-spirv-15 libllvmspirvlib-15-dev
	spirv-tools glslang-tools python3-ply)
missing=()
for p in "${deps[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
	say "apt-get install ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install -y -qq --no-install-recommends "${missing[@]}" >&2 ||
		die "apt-get install failed: ${missing[*]}"
fi
build=$root/build-anv
if [ ! -f "$build/build.ninja" ]; then
	PATH=/usr/lib/llvm-15/bin:/usr/bin:/bin:$PATH meson setup "$build" "$src" -Dbuildtype=debugoptimized \
		-Dgallium-drivers= -Dvulkan-drivers=intel -Dtools= -Dplatforms= -Dintel-rt=disabled \
		-Dglx=disabled -Degl=disabled -Dgles1=disabled -Dgles2=disabled -Dopengl=false \
		-Dllvm=enabled -Dshared-llvm=enabled -Dzstd=disabled -Dvalgrind=disabled -Dlibunwind=disabled \
		-Dvideo-codecs= -Dbuild-tests=false >&2 ||
		die "meson setup failed (log: $build/meson-logs/meson-log.txt)"
fi
say "building anv, debugoptimized (long; progress: $build/.ninja_log)"
PATH=/usr/lib/llvm-15/bin:/usr/bin:/bin:$PATH nice -n 19 ninja -j2 -C "$build" src/intel/vulkan/libvulkan_intel.so >&2 ||
	die "ninja failed in $build"
debug_icd=$root/icd/intel-debug.json
mkdir -p "$root/icd"
cat >"$debug_icd" <<-EOF
	{ "file_format_version": "1.0.0",
	  "ICD": { "library_path": "$debug_lib", "api_version": "1.4.305" } }
EOF
cat >"$debug_env" <<-EOF
	GPUFUZZ_ANV_ICD=$debug_icd
	GPUFUZZ_ANV_SHIM=$shim
	GPUFUZZ_ANV_MESA=$VERSION-debugoptimized
EOF
cat "$debug_env"
