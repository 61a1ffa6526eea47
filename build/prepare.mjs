#!/usr/bin/env node
// `npm run prepare`: build once. npm runs `prepare` after `npm ci` and again whenever it installs
// this project somewhere else from its folder (`npx parity` inside the repository installs the
// project into npx's cache and runs `prepare` in place), so a second run finds the build current
// and returns at once. `npm run build` always builds.
//
// `node build/prepare.mjs`          build unless dist/ was built from exactly these sources
// `node build/prepare.mjs --stamp`  record that dist/ was built from these sources (end of `build`)
//
// The stamp, dist/.sources.sha256, is a SHA-256 over the path and bytes of every build input:
// the sources tsc compiles (tsconfig.build.json), the entry, the compiler settings and the
// lockfile (the compiler's and esbuild's versions). Plain JavaScript, so it runs before tsc.
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const INPUTS = ["index.ts", "harness", "stack", "bench", "build", "bin", "package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json"];
// What a complete build leaves: the library entry, the CLI bundle and the stamp.
const OUTPUTS = ["dist/index.js", "dist/bundle/cli.js"];
const STAMP = path.join(root, "dist", ".sources.sha256");

function files(rel) {
  const abs = path.join(root, rel);
  if (!existsSync(abs)) return [];
  if (!statSync(abs).isDirectory()) return [rel];
  return readdirSync(abs, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => files(path.posix.join(rel, entry.name)));
}

function sourcesHash() {
  const hash = createHash("sha256");
  for (const rel of INPUTS.flatMap(files)) {
    hash.update(`${rel}\0`);
    hash.update(readFileSync(path.join(root, rel)));
    hash.update("\0");
  }
  return `sha256:${hash.digest("hex")}`;
}

if (process.argv.includes("--stamp")) {
  writeFileSync(STAMP, `${sourcesHash()}\n`);
} else {
  const current = OUTPUTS.every((rel) => existsSync(path.join(root, rel))) && existsSync(STAMP) && readFileSync(STAMP, "utf8").trim() === sourcesHash();
  if (current) {
    process.stdout.write("bridge-parity: dist/ is already built from these sources (npm run build rebuilds it)\n");
  } else {
    const npm = process.env.npm_execpath;
    const run = npm !== undefined ? spawnSync(process.execPath, [npm, "run", "build"], { cwd: root, stdio: "inherit" }) : spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
    process.exitCode = run.status ?? 1;
  }
}
