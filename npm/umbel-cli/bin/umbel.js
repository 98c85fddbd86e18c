#!/usr/bin/env node
// umbel's npm launcher: runs the umbel binary that the package for this platform carries
// (installed as one of this package's optionalDependencies, as codex and copilot ship theirs),
// passing the arguments, stdin/stdout/stderr and the exit status (or signal) through.
"use strict";

const { spawn } = require("node:child_process");
const path = require("node:path");

// platform-arch-libc → the package that carries the binary.
const PACKAGES = {
  "linux-x64-glibc": "umbel-cli-linux-x64-gnu",
  "linux-arm64-glibc": "umbel-cli-linux-arm64-gnu",
  "darwin-x64": "umbel-cli-darwin-x64",
  "darwin-arm64": "umbel-cli-darwin-arm64",
};

function libc() {
  if (process.platform !== "linux") return "";
  const report = process.report && process.report.getReport ? process.report.getReport() : null;
  return report && report.header && report.header.glibcVersionRuntime ? "glibc" : "musl";
}

function platformKey() {
  const c = libc();
  return [process.platform, process.arch, c].filter(Boolean).join("-");
}

function binary() {
  const key = platformKey();
  const pkg = PACKAGES[key];
  if (!pkg) {
    return { error: `umbel: no build for this platform (${key}): umbel's npm packages carry ${Object.keys(PACKAGES).join(", ")}. Build it with \`cargo install --locked umbel\`.` };
  }
  try {
    const dir = path.dirname(require.resolve(`${pkg}/package.json`));
    return { path: path.join(dir, "bin", "umbel") };
  } catch (_) {
    return { error: `umbel: the package for this platform (${pkg}, ${key}) is not installed: npm skips optional dependencies with --omit=optional or --no-optional. Install it again: npm i -g umbel-cli` };
  }
}

const found = binary();
if (found.error) {
  console.error(found.error);
  process.exit(1);
}
const child = spawn(found.path, process.argv.slice(2), {
  stdio: "inherit",
  env: { ...process.env, UMBEL_INSTALLED_BY: "npm" },
});
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    if (!child.killed) child.kill(signal);
  });
}
child.on("error", (err) => {
  console.error(`umbel: cannot run ${found.path}: ${err.message}`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code === null ? 1 : code);
  }
});
