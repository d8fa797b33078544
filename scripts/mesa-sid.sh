#!/usr/bin/env bash
# The newest packaged Mesa (Debian sid's) in a root of its own, for every real-driver target.
#
#   scripts/mesa-sid.sh        # install once; prints the Mesa and SPIRV-Tools versions and the
#                              # folder describing the installation (mesa-<version>/)
#
# sid's libraries need sid's libc, so they cannot be unpacked beside the system's (as
# scripts/mesa-backports.sh does with bookworm-backports): they get a Debian sid root, made with
# debootstrap from the archive the system's own apt sources name. The driver workers run inside
# it under chroot (our binary is copied in: it runs there unchanged); the system's Mesa stays
# as it is.
#
# Steps, each skipped when its stamp says it is done (a second run changes nothing and takes
# seconds):
#   1. debootstrap --variant=minbase sid into <cache>/sid-root;
#   2. apt inside the root: the same archive, binaries and sources, `Check-Valid-Until false`
#      (the archive may be a snapshot whose Release file has expired);
#   3. /proc, /sys, /dev and /dev/pts bind-mounted into the root (again after a reboot);
#   4. the drivers (lavapipe, anv, radv, turnip, NVK, Asahi), Mesa's drm shims, the Vulkan
#      loader, SPIRV-Tools, glslang and gdb installed with apt inside the root;
#   5. Mesa's Intel no-op drm-shim (sid ships every vendor's shim but Intel's), built from the
#      installed Mesa's source package, or scripts/mesa.sh's when the archive lacks that source;
#   5b. for Debian's 26.2.6-1 anv, a copy with Jay (Intel's new backend) switched on;
#   6. <cache>/mesa-<version>/: anv.env, radv.env, turnip.env, nvk.env and asahi.env (what the
#      compile-only targets read, with the root they run in), vulkan.env (lavapipe for the `vulkan` and `naga` targets),
#      versions (Mesa, SPIRV-Tools, glslang, the Vulkan loader).
# Cache: ${GPUFUZZ_CACHE:-$HOME/.cache/gpufuzz}/ (sid-root/, about 1.3 GB with the build).
set -euo pipefail

case "${1:-}" in
"") ;;
*)
	echo "usage: scripts/mesa-sid.sh" >&2
	exit 2
	;;
esac

here=$(cd "$(dirname "$0")" && pwd)
cache=${GPUFUZZ_CACHE:-$HOME/.cache/gpufuzz}
root=$cache/sid-root
state=$root/var/lib/gpufuzz
lib=/usr/lib/x86_64-linux-gnu
intel_shim=/usr/local/lib/gpufuzz/libintel_noop_drm_shim.so
# What the targets need, and what building the Intel shim needs (inside the root only).
packages=(mesa-vulkan-drivers mesa-drm-shim libvulkan1 vulkan-tools spirv-tools glslang-tools gdb)
build_packages=(meson ninja-build gcc g++ python3-mako python3-yaml python3-packaging libdrm-dev
	bison flex pkg-config zlib1g-dev libexpat1-dev xz-utils)

say() { echo "mesa-sid: $*" >&2; }
die() {
	say "$*"
	exit 1
}
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, mounts and chroot)"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
# Writes a file only when its text changes, so a second run changes nothing.
write() { [ "$(cat "$1" 2>/dev/null)" = "$2" ] || printf '%s\n' "$2" >"$1"; }

# The archive: the deb822 stanza of the system's sources whose Suites name the release itself.
archive() {
	local codename
	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	awk -v rel="$codename" '
		/^[[:space:]]*$/ { if (ok && uri != "") { print uri; exit } ok = 0; uri = ""; next }
		/^URIs:/ { uri = $2 }
		/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == rel) ok = 1 }
		END { if (ok && uri != "") print uri }' /etc/apt/sources.list.d/*.sources | head -n 1
}

# 1. The root.
if [ ! -f "$state/bootstrapped" ]; then
	command -v debootstrap >/dev/null || {
		say "apt-get install debootstrap"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >&2 || die "cannot install debootstrap"
	}
	uri=$(archive)
	[ -n "$uri" ] || die "no deb822 stanza for the system's release in /etc/apt/sources.list.d/*.sources"
	say "debootstrap sid into $root (about a minute)"
	rm -rf "$root.new"
	mkdir -p "$cache"
	debootstrap --variant=minbase sid "$root.new" "$uri" >&2 || die "debootstrap failed (log: $root.new/debootstrap/debootstrap.log)"
	rm -rf "$root"
	mv "$root.new" "$root"
	mkdir -p "$state"
	echo "$uri" >"$state/bootstrapped"
fi
uri=$(cat "$state/bootstrapped")

# 2. apt inside the root.
write "$root/etc/apt/apt.conf.d/99gpufuzz" 'Acquire::Check-Valid-Until "false";
APT::Install-Recommends "false";'
write "$root/etc/apt/sources.list.d/debian.sources" "Types: deb deb-src
URIs: $uri
Suites: sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
[ -f "$root/etc/apt/sources.list" ] && [ -s "$root/etc/apt/sources.list" ] && : >"$root/etc/apt/sources.list"

# 3. The kernel's file systems, for Mesa and gdb inside the root.
for m in proc sys dev dev/pts; do
	mountpoint -q "$root/$m" || mount --bind "/$m" "$root/$m" || die "cannot bind-mount /$m into $root"
done

# 4. Drivers and tools.
want="${packages[*]} ${build_packages[*]}"
if [ "$(cat "$state/installed" 2>/dev/null)" != "$want" ]; then
	say "apt-get install inside the root: $want"
	in_root apt-get -qq update >&2 || die "apt-get update inside $root failed"
	in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" "${build_packages[@]}" >&2 ||
		die "apt-get install inside $root failed"
	echo "$want" >"$state/installed"
fi
version() { in_root dpkg-query -W -f '${Version}' "$1" 2>/dev/null; }
mesa_full=$(version mesa-vulkan-drivers)
mesa=${mesa_full%%-*}
[ -n "$mesa" ] || die "mesa-vulkan-drivers is not installed in $root"

# 5. The Intel no-op drm-shim of the installed Mesa, built inside the root from its source
#    package. When the archive lacks that source (measured 2026-12: sid's index names 26.2.6,
#    26.2.5 and 26.1.6, but their files are missing, 404), the shim scripts/mesa.sh builds on
#    the system from bookworm-backports' 25.0.7 is copied in instead (25.0.7's own source does
#    not build against sid's libc 2.43: its C11 threads header redefines `once_flag`). The shim
#    only answers the kernel's calls — device queries, buffer objects, no-op submissions — and
#    a 25.0.7 shim drives anv 26.2.6 on every platform; what it does not know it names on
#    stderr (`Unknown drm_i915_query_item id=5`), which is harmless.
if [ "$(head -n 1 "$state/intel-shim" 2>/dev/null)" != "$mesa_full" ]; then
	src=/usr/src/mesa-$mesa
	build=/usr/src/build-intel-shim-$mesa
	rm -rf "$root/usr/src/download" && mkdir -p "$root/usr/src/download"
	# Only the upstream tarball is needed (`apt-get source` gives up on the whole package when
	# one of its files is missing), checked against the hash the source index gives.
	read -r url file hash < <(in_root apt-get source --print-uris "mesa=$mesa_full" 2>/dev/null |
		awk -F"[' ]+" '$3 ~ /^mesa_.*\.orig\.tar\.xz$/ { print $2, $3, $5 }') || true
	if [ -n "${url:-}" ] && in_root /usr/lib/apt/apt-helper download-file "$url" "/usr/src/download/$file" "$hash" >/dev/null 2>&1; then
		rm -rf "$root$src" "$root$build" && mkdir -p "$root$src"
		tar -xf "$root/usr/src/download/$file" -C "$root$src" --strip-components=1
		rm -rf "$root/usr/src/download"
		in_root meson setup "$build" "$src" -Dbuildtype=release \
			-Dgallium-drivers= -Dvulkan-drivers= -Dtools=drm-shim,intel -Dplatforms= \
			-Dglx=disabled -Degl=disabled -Dgles1=disabled -Dgles2=disabled -Dopengl=false \
			-Dllvm=disabled -Dzstd=disabled -Dvalgrind=disabled -Dlibunwind=disabled >&2 ||
			die "meson setup failed (log: $root$build/meson-logs/meson-log.txt)"
		say "building the Intel drm-shim of Mesa $mesa inside the root (a few minutes)"
		in_root nice ninja -C "$build" src/intel/tools/libintel_noop_drm_shim.so >&2 || die "ninja failed in $root$build"
		built=$root$build/src/intel/tools/libintel_noop_drm_shim.so
		from="$mesa_full
built from mesa $mesa's source in the root"
	else
		rm -rf "$root/usr/src/download"
		say "Mesa $mesa's source is not in the archive: the Intel shim comes from scripts/mesa.sh"
		shim_env=$("$here/mesa.sh") || die "scripts/mesa.sh failed"
		built=$(printf '%s\n' "$shim_env" | sed -n 's/^GPUFUZZ_ANV_SHIM=//p')
		[ -f "$built" ] || die "scripts/mesa.sh named no Intel shim (got '$built')"
		from="$mesa_full
copied from scripts/mesa.sh ($(printf '%s\n' "$shim_env" | sed -n 's/^GPUFUZZ_ANV_MESA=//p'), built on the system): $mesa's source is not in the archive"
	fi
	mkdir -p "$root${intel_shim%/*}"
	cp "$built" "$root$intel_shim.new"
	mv "$root$intel_shim.new" "$root$intel_shim"
	echo "$from" >"$state/intel-shim"
fi
intel_shim_from=$(sed -n 2p "$state/intel-shim")

# 5b. anv with Jay, Intel's new backend, switched on. 26.2.6's libvulkan_intel.so carries Jay
#     (its compile entry reads JAY_DEBUG and prints "Jay shader:"), but all four of anv's calls
#     into it are guarded by one predicate compiled to `return false` (xor %eax,%eax; ret at
#     0x588024 of Debian's 26.2.6-1 build): no platform or switch reaches Jay. A copy with that
#     predicate answering true (mov $1,%al) is what the `anv` target's `anv_backend=jay` loads.
#     Only the measured build is patched: its hash and the two bytes are checked first, and
#     any other anv gets no Jay copy (the target then skips Jay cases, saying why).
jay_dir=/usr/local/lib/gpufuzz/jay
jay_icd=
if [ "$(sha256sum <"$root$lib/libvulkan_intel.so" | cut -d' ' -f1)" = \
	945da79f23edf6697f5aa6e57ee5e46a6f46aa7c9b6766edbafcfc4b6d0417db ]; then
	gate=$((0x588024))
	[ "$(od -An -tx1 -j "$gate" -N 3 "$root$lib/libvulkan_intel.so" | tr -d ' ')" = 31c0c3 ] ||
		die "anv 26.2.6's Jay gate is not where it was measured"
	jay_lib=$jay_dir/libvulkan_intel_jay.so
	if [ ! -f "$root$jay_lib" ]; then
		mkdir -p "$root$jay_dir"
		cp "$root$lib/libvulkan_intel.so" "$root$jay_lib.new"
		printf '\260\001' | dd of="$root$jay_lib.new" bs=1 seek="$gate" conv=notrunc status=none
		mv "$root$jay_lib.new" "$root$jay_lib"
	fi
	jay_icd=$jay_dir/intel_jay_icd.json
	write "$root$jay_icd" "{ \"ICD\": { \"api_version\": \"1.4.354\", \"library_path\": \"$jay_lib\" }, \"file_format_version\": \"1.0.1\" }"
fi

# 6. What the targets read. Paths inside the root are as the worker sees them under chroot.
out=$cache/mesa-$mesa
mkdir -p "$out"
for f in lvp_icd.json intel_icd.json radeon_icd.json freedreno_icd.json nouveau_icd.json asahi_icd.json; do
	[ -f "$root/usr/share/vulkan/icd.d/$f" ] || die "$root/usr/share/vulkan/icd.d/$f missing"
done
[ -f "$root$lib/libamdgpu_noop_drm_shim.so" ] || die "$root$lib/libamdgpu_noop_drm_shim.so missing"
write "$out/anv.env" "GPUFUZZ_ANV_ICD=/usr/share/vulkan/icd.d/intel_icd.json
GPUFUZZ_ANV_SHIM=$intel_shim
GPUFUZZ_ANV_MESA=$mesa
GPUFUZZ_ANV_ROOT=$root${jay_icd:+
GPUFUZZ_ANV_JAY_ICD=$jay_icd}"
write "$out/radv.env" "GPUFUZZ_RADV_ICD=/usr/share/vulkan/icd.d/radeon_icd.json
GPUFUZZ_RADV_SHIM=$lib/libamdgpu_noop_drm_shim.so
GPUFUZZ_RADV_MESA=$mesa
GPUFUZZ_RADV_ROOT=$root"
# The compile-only targets of the young compilers: turnip (ir3), NVK (NAK), Asahi (AGX), each
# over its vendor's no-op shim.
for driver in "TURNIP freedreno" "NVK nouveau" "ASAHI asahi"; do
	set -- $driver
	[ -f "$root$lib/lib$2_noop_drm_shim.so" ] || die "$root$lib/lib$2_noop_drm_shim.so missing"
	name=$(printf '%s' "$1" | tr 'A-Z' 'a-z')
	write "$out/$name.env" "GPUFUZZ_$1_ICD=/usr/share/vulkan/icd.d/$2_icd.json
GPUFUZZ_$1_SHIM=$lib/lib$2_noop_drm_shim.so
GPUFUZZ_$1_MESA=$mesa
GPUFUZZ_$1_ROOT=$root"
done
write "$out/vulkan.env" "GPUFUZZ_VULKAN_ICD=/usr/share/vulkan/icd.d/lvp_icd.json
GPUFUZZ_VULKAN_MESA=$mesa
GPUFUZZ_VULKAN_ROOT=$root"
versions="mesa $mesa_full
spirv-tools $(version spirv-tools)
glslang $(version glslang-tools)
vulkan-loader $(version libvulkan1)
intel-drm-shim $intel_shim_from"
write "$out/versions" "$versions"
echo "$versions"
echo "installed in $out"
