#!/usr/bin/env bash
# Installs the Debian packages attnviz needs that are missing, and nothing else.
# usage: scripts/deps.sh [build|test|app|fuzz|package]
#   test adds clang and its sanitizer runtimes (the suite's build), Xvfb + Mesa for the GUI tests and
#   desktop-file-validate for the install test; fuzz adds
#   clang, its libFuzzer and sanitizer runtimes and LLVM's OpenMP (clang's -fopenmp links libomp, not
#   GCC's libgomp) for bench/fuzz.sh; package adds dpkg-shlibdeps and file, which cpack's DEB
#   generator runs to find the package's Depends (scripts/package.sh).
set -euo pipefail
packages=(cmake g++ make pkg-config libeigen3-dev nlohmann-json3-dev doctest-dev libstb-dev
          libopenblas-openmp-dev libfontconfig-dev fonts-nanum libimgui-dev libglfw3-dev libgl-dev)
case "${1:-build}" in
  # xrdb (x11-xserver-utils): the HiDPI test's Xft.dpi; desktop-file-validate: the install test;
  # xdotool, ibus, ibus-hangul, dbus-x11: the input method test types Korean with real keys
  test) packages+=(clang libclang-rt-dev xvfb xauth libgl1-mesa-dri x11-xserver-utils desktop-file-utils libxml2-utils librsvg2-bin
                   xdotool ibus ibus-hangul dbus-x11) ;;
  fuzz) packages+=(clang libclang-rt-dev libomp-dev) ;;
  package) packages+=(dpkg-dev file) ;;
  app|build) ;;
  *) echo "usage: $0 [build|test|app|fuzz|package]" >&2; exit 2 ;;
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
