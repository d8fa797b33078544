#!/usr/bin/env bash
# Installs Debian bookworm-backports' Mesa (25.0.7) beside the system's, without touching the
# system: the packages are fetched with `apt-get download` under a private apt configuration,
# unpacked with `dpkg -x` into a cache folder, and given ICD manifests with absolute library
# paths, so `--vk-icd <cache>/icd/lvp.json` runs lavapipe 25.0.7 while the system keeps 22.3.6.
#
#   scripts/mesa-backports.sh            # fetch once; prints the ICD manifests' paths
#   GPUFUZZ_CACHE=/somewhere scripts/mesa-backports.sh
#
# The cache is ${GPUFUZZ_CACHE:-$HOME/.cache/gpufuzz}/mesa-25.0.7/ (root/ holds the unpacked
# packages, icd/ the manifests lvp.json, intel.json, radeon.json, apt/ the private apt state;
# radv.env names radv's manifest and the amdgpu drm-shim for the `radv` target, vulkan.env
# lavapipe's for the `vulkan` target under `--mesa 25.0.7`).
# A second run finds the stamp and only prints the paths. The archive is the one the system's
# own /etc/apt/sources.list.d/debian.sources names; only the suite changes to
# bookworm-backports (see docs/drivers.md for the sources entry a user adds instead).
set -euo pipefail

version=25.0.7
suite=bookworm-backports
cache="${GPUFUZZ_CACHE:-$HOME/.cache/gpufuzz}/mesa-$version"
# The driver package, the libdrm it was built against (older ones lack symbols it needs) and the
# no-op DRM shims (amdgpu, nouveau, radeon) that let radv enumerate without a GPU.
packages=(mesa-vulkan-drivers libdrm2 libdrm-amdgpu1 libdrm-intel1 libdrm-common mesa-drm-shim)
stamp="$cache/.complete"
want="$version ${packages[*]}"

print_icds() {
    for icd in lvp intel radeon; do echo "$cache/icd/$icd.json"; done
}

# Writes $cache/$1 with the text $2 unless it already holds it: a second run changes nothing
# (.ci/run checks).
write_env() {
    if [ "$(cat "$cache/$1" 2>/dev/null)" != "$2" ]; then
        printf '%s\n' "$2" >"$cache/$1.new"
        mv "$cache/$1.new" "$cache/$1"
    fi
}

# radv.env: what the `radv` target reads (radv's ICD and the amdgpu no-op drm-shim);
# vulkan.env: what the `vulkan` target reads under `--mesa 25.0.7` (lavapipe's ICD).
write_envs() {
    local shim="$cache/root/usr/lib/x86_64-linux-gnu/libamdgpu_noop_drm_shim.so"
    [ -f "$shim" ] || { echo "mesa-backports: $shim missing" >&2; exit 1; }
    write_env radv.env "$(printf 'GPUFUZZ_RADV_ICD=%s\nGPUFUZZ_RADV_SHIM=%s\nGPUFUZZ_RADV_MESA=%s' \
        "$cache/icd/radeon.json" "$shim" "$version")"
    write_env vulkan.env "$(printf 'GPUFUZZ_VULKAN_ICD=%s\nGPUFUZZ_VULKAN_MESA=%s' \
        "$cache/icd/lvp.json" "$version")"
}

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    write_envs
    print_icds
    exit 0
fi

system_sources=/etc/apt/sources.list.d/debian.sources
if [ ! -r "$system_sources" ]; then
    echo "mesa-backports: $system_sources not found; cannot derive the Debian archive" >&2
    exit 1
fi

mkdir -p "$cache/apt/sources" "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial" \
    "$cache/debs"

# The first deb822 stanza whose Suites name plain `bookworm` is the main archive; keep its
# URIs, Components and Signed-By, replace its suites with backports.
awk -v suite="$suite" '
    BEGIN { RS = ""; FS = "\n" }
    {
        if (done) next
        main = 0
        for (i = 1; i <= NF; i++)
            if ($i ~ /^Suites:/ && $i ~ /[ \t]bookworm([ \t]|$)/) main = 1
        if (!main) next
        for (i = 1; i <= NF; i++) {
            if ($i ~ /^#/) continue
            if ($i ~ /^Suites:/) print "Suites: " suite
            else print $i
        }
        done = 1
    }
    END { if (!done) exit 1 }
' "$system_sources" >"$cache/apt/sources/backports.sources" || {
    echo "mesa-backports: no stanza with Suites: bookworm in $system_sources" >&2
    exit 1
}

apt_opts=(
    -o "Dir::Etc::SourceList=/dev/null"
    -o "Dir::Etc::SourceParts=$cache/apt/sources"
    -o "Dir::State::Lists=$cache/apt/lists"
    -o "Dir::Cache=$cache/apt/cache"
    -o "APT::Sandbox::User=$(id -un)"
    -o "Debug::NoLocking=1"
)

echo "mesa-backports: fetching $suite package lists" >&2
apt-get "${apt_opts[@]}" -qq update >&2

echo "mesa-backports: downloading ${packages[*]}" >&2
rm -f "$cache"/debs/*.deb
(cd "$cache/debs" && apt-get "${apt_opts[@]}" -qq download \
    "${packages[@]/%//$suite}" >&2)

rm -rf "$cache/root.new"
mkdir -p "$cache/root.new"
for deb in "$cache"/debs/*.deb; do
    dpkg -x "$deb" "$cache/root.new"
done

lib="$cache/root/usr/lib/x86_64-linux-gnu"
rm -rf "$cache/root"
mv "$cache/root.new" "$cache/root"

# The packaged manifests name the library by its bare file name (found on the loader's path, the
# system's 22.3.6); ours name the unpacked file by its absolute path.
mkdir -p "$cache/icd"
write_icd() { # our name, packaged manifest's name, library file name
    local so="$lib/$3" packaged="$cache/root/usr/share/vulkan/icd.d/$2"
    if [ ! -f "$so" ] || [ ! -f "$packaged" ]; then
        echo "mesa-backports: $so or $packaged missing from the unpacked packages" >&2
        exit 1
    fi
    sed -E "s#(\"library_path\": *\")[^\"]*#\1$so#" "$packaged" >"$cache/icd/$1.json"
    grep -q "\"$so\"" "$cache/icd/$1.json" || {
        echo "mesa-backports: could not rewrite library_path in $packaged" >&2
        exit 1
    }
}
write_icd lvp lvp_icd.json libvulkan_lvp.so
write_icd intel intel_icd.json libvulkan_intel.so
write_icd radeon radeon_icd.json libvulkan_radeon.so

write_envs
echo "$want" >"$stamp"
print_icds
