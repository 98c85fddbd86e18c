#!/bin/sh
# Installs umbel from a release's tarball, no Rust needed:
#
#   curl -fsSL "$UMBEL_RELEASE_URL/install.sh" | UMBEL_RELEASE_URL=... sh
#   UMBEL_RELEASE_URL=https://example.org/umbel/v0.1.0 sh scripts/install.sh
#
# It detects the platform (Linux x86_64/aarch64 with glibc, macOS x86_64/arm64), downloads
# `umbel-<version>-<target>.tar.gz` and its `.sha256` from UMBEL_RELEASE_URL (a release's
# folder: `manifest.json`, the tarballs, their checksums — what `just dist` writes into dist/),
# refuses a tarball whose SHA-256 is not the one published, and installs the binary into
# UMBEL_INSTALL_DIR (default ~/.local/bin), its man pages into ~/.local/share/man/man1, and a
# note of how it was installed (~/.local/share/umbel/installed-by) that `umbel --version` and
# `umbel doctor` read to say how to update. Nothing else is touched; nothing runs as root.
#
#   UMBEL_RELEASE_URL   where the release's files are (required; http(s):// or file://)
#   UMBEL_VERSION       the version to install (default: the one manifest.json names)
#   UMBEL_INSTALL_DIR   where the binary goes (default ~/.local/bin)
#   UMBEL_TARGET        the target triple, instead of detecting it (for testing)
set -eu

fail() {
  echo "umbel install: $*" >&2
  exit 1
}

base=${UMBEL_RELEASE_URL:-}
[ -n "$base" ] || fail "UMBEL_RELEASE_URL is not set: point it at a release's folder (the one holding manifest.json and the tarballs)"
base=${base%/}
dir=${UMBEL_INSTALL_DIR:-$HOME/.local/bin}
data=${XDG_DATA_HOME:-$HOME/.local/share}

fetch() { # fetch URL FILE
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --proto '=https,http,file' -o "$2" "$1" || fail "could not download $1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1" || fail "could not download $1"
  else
    fail "neither curl nor wget is installed: install one of them"
  fi
}

target() {
  os=$(uname -s)
  arch=$(uname -m)
  case "$os" in
    Linux)
      if ldd --version 2>&1 | grep -qi musl; then
        fail "Linux with musl libc ($arch) has no umbel release build: build it with \`cargo install --locked umbel\`"
      fi
      case "$arch" in
        x86_64 | amd64) echo x86_64-unknown-linux-gnu ;;
        aarch64 | arm64) echo aarch64-unknown-linux-gnu ;;
        *) fail "no umbel release build for Linux on $arch: build it with \`cargo install --locked umbel\`" ;;
      esac
      ;;
    Darwin)
      case "$arch" in
        x86_64) echo x86_64-apple-darwin ;;
        arm64 | aarch64) echo aarch64-apple-darwin ;;
        *) fail "no umbel release build for macOS on $arch" ;;
      esac
      ;;
    *) fail "no umbel release build for $os ($arch): umbel runs where tmux does (Linux, macOS); build it with \`cargo install --locked umbel\`" ;;
  esac
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d' ' -f1
  else
    fail "neither sha256sum nor shasum is installed: the download cannot be checked"
  fi
}

triple=${UMBEL_TARGET:-$(target)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

version=${UMBEL_VERSION:-}
if [ -z "$version" ]; then
  fetch "$base/manifest.json" "$work/manifest.json"
  version=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$work/manifest.json" | head -n 1)
  [ -n "$version" ] || fail "$base/manifest.json names no version"
fi
name="umbel-$version-$triple"
if [ -f "$work/manifest.json" ] && ! grep -q "\"$name.tar.gz\"" "$work/manifest.json"; then
  fail "the release at $base has no build for $triple (its manifest.json lists none): build it with \`cargo install --locked umbel\`"
fi
fetch "$base/$name.tar.gz" "$work/$name.tar.gz"
fetch "$base/$name.tar.gz.sha256" "$work/$name.tar.gz.sha256"
want=$(cut -d' ' -f1 "$work/$name.tar.gz.sha256")
got=$(sha256_of "$work/$name.tar.gz")
[ "$want" = "$got" ] || fail "$name.tar.gz does not match its published SHA-256 (expected $want, got $got): not installed"

tar -xzf "$work/$name.tar.gz" -C "$work"
[ -x "$work/$name/umbel" ] || fail "$name.tar.gz holds no umbel binary"
mkdir -p "$dir" "$data/man/man1" "$data/umbel"
cp "$work/$name/umbel" "$dir/umbel.new"
chmod 755 "$dir/umbel.new"
mv "$dir/umbel.new" "$dir/umbel"
if [ -d "$work/$name/man" ]; then
  cp "$work/$name/man/"*.1 "$data/man/man1/" 2>/dev/null || true
fi
printf 'installer %s %s %s\n' "$version" "$dir/umbel" "$base" >"$data/umbel/installed-by"
echo "umbel $version ($triple) installed to $dir/umbel"
case ":$PATH:" in
  *":$dir:"*) ;;
  *) echo "note: $dir is not on your PATH; add it (e.g. export PATH=\"$dir:\$PATH\" in your shell's profile)" ;;
esac
