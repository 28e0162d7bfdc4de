#!/usr/bin/env bash
# Installs the Debian packages attnviz needs that are missing, and nothing else.
# usage: scripts/deps.sh [build|test|app|fuzz]
#   test adds Xvfb + Mesa for the GUI tests; fuzz adds clang, its libFuzzer and sanitizer runtimes and
#   LLVM's OpenMP (clang's -fopenmp links libomp, not GCC's libgomp) for bench/fuzz.sh.
set -euo pipefail
packages=(cmake g++ make pkg-config libeigen3-dev nlohmann-json3-dev doctest-dev libstb-dev
          libopenblas-openmp-dev libfontconfig-dev fonts-nanum libimgui-dev libglfw3-dev libgl-dev)
case "${1:-build}" in
  test) packages+=(xvfb xauth libgl1-mesa-dri x11-xserver-utils) ;;  # xrdb: the HiDPI test's Xft.dpi
  fuzz) packages+=(clang libclang-rt-dev libomp-dev) ;;
  app|build) ;;
  *) echo "usage: $0 [build|test|app|fuzz]" >&2; exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "attnviz: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
