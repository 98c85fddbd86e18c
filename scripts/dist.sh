#!/usr/bin/env bash
# `just dist`: the release artifacts of this machine's target, under dist/ (docs/releasing.md):
#
#   umbel-<version>-<target>.tar.gz (+ .sha256)   the binary, man pages, shell completions,
#                                                 README, LICENSE, CHANGELOG
#   umbel-cli-<version>.tgz                       the npm launcher package (bin: umbel)
#   umbel-cli-<platform>-<version>.tgz            the npm package carrying this target's binary
#   manifest.json                                 every artifact with its SHA-256 and size, the
#                                                 toolchain, the commit, and the targets a release
#                                                 machine builds elsewhere (with its commands)
#   install.sh                                    the one-line installer (scripts/install.sh)
#
# Reproducible inputs: `cargo build --locked`, the toolchain recorded; the tarball's entries are
# sorted, owned by 0:0 and dated from the last commit (SOURCE_DATE_EPOCH), gzip without a name
# or time. Only linux-x64 (glibc) builds here: cross targets cannot be fetched offline, so the
# manifest lists them as to be built elsewhere, never as present.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${DIST_DIR:-dist}
version=$(cargo metadata --no-deps --format-version 1 --locked |
  python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "umbel"))')
target=$(rustc -vV | sed -n 's/^host: //p')
case "$target" in
  x86_64-unknown-linux-gnu) npm_platform=linux-x64-gnu os=linux cpu=x64 libc=glibc ;;
  aarch64-unknown-linux-gnu) npm_platform=linux-arm64-gnu os=linux cpu=arm64 libc=glibc ;;
  x86_64-apple-darwin) npm_platform=darwin-x64 os=darwin cpu=x64 libc= ;;
  aarch64-apple-darwin) npm_platform=darwin-arm64 os=darwin cpu=arm64 libc= ;;
  *) echo "dist: no release layout for $target" >&2; exit 1 ;;
esac
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}

echo "dist: umbel $version for $target ($(rustc -V))" >&2
cargo build --release --locked -p umbel --bin umbel
bin=target/release/umbel

rm -rf "$out"
mkdir -p "$out"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
name="umbel-$version-$target"
mkdir -p "$stage/$name/man" "$stage/$name/completions"
cp "$bin" "$stage/$name/umbel"
"$bin" man --out-dir "$stage/$name/man" >/dev/null
for shell in bash zsh fish; do
  "$bin" completions "$shell" >"$stage/$name/completions/umbel.$shell"
done
cp README.md LICENSE CHANGELOG.md "$stage/$name/"
tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
  -C "$stage" -cf - "$name" | gzip -n -9 >"$out/$name.tar.gz"
(cd "$out" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")

# npm: the launcher and this platform's package (names free on the registry; docs/releasing.md).
npm_stage="$stage/npm"
mkdir -p "$npm_stage/umbel-cli/bin" "$npm_stage/umbel-cli-$npm_platform/bin"
cp npm/umbel-cli/bin/umbel.js "$npm_stage/umbel-cli/bin/umbel.js"
cp README.md LICENSE "$npm_stage/umbel-cli/"
python3 - "$version" "$npm_platform" "$os" "$cpu" "$libc" "$npm_stage" <<'PY'
import json, sys
version, platform, os_, cpu, libc, stage = sys.argv[1:]
platforms = ["linux-x64-gnu", "linux-arm64-gnu", "darwin-x64", "darwin-arm64"]
common = {"version": version, "license": "MIT"}
launcher = {
    "name": "umbel-cli",
    "description": "umbel: remote-control the interactive agent TUIs (Claude Code, Codex, Gemini CLI, Qwen Code, OpenCode, Copilot CLI) in tmux, with print-mode convenience",
    **common,
    "bin": {"umbel": "bin/umbel.js"},
    "files": ["bin/umbel.js", "README.md", "LICENSE"],
    "engines": {"node": ">=18"},
    "optionalDependencies": {f"umbel-cli-{p}": version for p in platforms},
}
carrier = {
    "name": f"umbel-cli-{platform}",
    "description": f"The umbel binary for {platform} (installed by umbel-cli)",
    **common,
    "os": [os_],
    "cpu": [cpu],
    "files": ["bin/umbel"],
    "preferUnplugged": True,
}
if libc:
    carrier["libc"] = [libc]
for pkg in (launcher, carrier):
    with open(f"{stage}/{pkg['name']}/package.json", "w") as f:
        json.dump(pkg, f, indent=2)
        f.write("\n")
PY
cp "$bin" "$npm_stage/umbel-cli-$npm_platform/bin/umbel"
for pkg in umbel-cli "umbel-cli-$npm_platform"; do
  (cd "$npm_stage/$pkg" && npm pack --silent --pack-destination "$OLDPWD/$out" >/dev/null)
done
cp scripts/install.sh "$out/install.sh"

python3 - "$out" "$version" "$target" "$npm_platform" <<'PY'
import hashlib, json, os, subprocess, sys
out, version, target, npm_platform = sys.argv[1:]
def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
artifacts = []
for name in sorted(os.listdir(out)):
    path = os.path.join(out, name)
    if name == "manifest.json" or name.endswith(".sha256"):
        continue
    kind = ("tarball" if name.endswith(".tar.gz") else "npm" if name.endswith(".tgz")
            else "installer" if name == "install.sh" else "other")
    data = open(path, "rb").read()
    artifacts.append({"file": name, "kind": kind, "bytes": len(data),
                      "sha256": hashlib.sha256(data).hexdigest(),
                      **({"target": target} if kind == "tarball" else {}),
                      **({"npmPlatform": npm_platform} if name.startswith(f"umbel-cli-{npm_platform}-") else {})})
elsewhere = []
for other, platform, runner in [
    ("aarch64-unknown-linux-gnu", "linux-arm64-gnu", "a Linux arm64 machine (glibc)"),
    ("x86_64-apple-darwin", "darwin-x64", "an Intel Mac"),
    ("aarch64-apple-darwin", "darwin-arm64", "an Apple silicon Mac"),
]:
    if other == target:
        continue
    elsewhere.append({
        "target": other,
        "npmPlatform": platform,
        "buildOn": runner,
        "commands": [f"git checkout v{version}", "just dist",
                     f"cp dist/umbel-{version}-{other}.tar.gz* dist/umbel-cli-{platform}-{version}.tgz <release folder>"],
        "present": False,
    })
manifest = {
    "name": "umbel",
    "version": version,
    "commit": run("git", "rev-parse", "HEAD"),
    "dirty": bool(run("git", "status", "--porcelain", "--untracked-files=no")),
    "toolchain": {"rustc": run("rustc", "-V"), "cargo": run("cargo", "-V")},
    "built": {"target": target, "locked": True, "sourceDateEpoch": int(os.environ.get("SOURCE_DATE_EPOCH", "0"))},
    "artifacts": artifacts,
    "toBuildElsewhere": elsewhere,
}
with open(os.path.join(out, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=2)
    f.write("\n")
PY
echo "dist: wrote $out/:" >&2
ls -l "$out" >&2
