#!/usr/bin/env node
// Backfills the version sidecars of the committed oracles (issue 41; harness/recording/oracle-version.ts):
// for each `lanes/<provider>/<cell>.json`, the `cliVersion` of `recordings/<provider>/<cell>/manifest.json`
// as it stood in the commit that last changed the oracle — the manifest the oracle was accepted from —
// written to `lanes/<provider>/<cell>.version`. Run it from the project root of a git checkout after a
// merge that brought oracles accepted before sidecars existed (a sidecar that already names the same
// version is left as it is):
//
//   node build/backfill-oracle-versions.mjs           write the missing and stale sidecars, one line each
//   node build/backfill-oracle-versions.mjs --check   write nothing; exit 1 when a sidecar is missing or differs
//
// An oracle whose last commit has no manifest for its cell (the recording came later) takes the
// manifest of the first later commit that has one; an oracle not committed yet takes today's manifest.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = process.cwd();
const check = process.argv.includes("--check");
const git = (...args) => execFileSync("git", args, { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
const versionOf = (text) => {
  try {
    const v = JSON.parse(text).cliVersion;
    return typeof v === "string" ? v : undefined;
  } catch {
    return undefined;
  }
};

/** The manifest's cliVersion at `commit`, or undefined when it is not there. */
function manifestAt(commit, manifest) {
  try {
    return versionOf(git("show", `${commit}:${manifest}`));
  } catch {
    return undefined;
  }
}

/**
 * The oracle names of one provider's folder, sorted: `<cell>.json`, and each alternate path's
 * `<cell>/alternates/<k>.json` (harness/recording/alternates.ts), whose recording is
 * `recordings/<p>/<cell>/alternates/<k>/` and sidecar `<k>.version` beside it.
 */
function oracleNames(dir) {
  const names = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith(".json")) names.push(entry.name);
    const alternates = path.join(dir, entry.name, "alternates");
    if (entry.isDirectory() && existsSync(alternates)) {
      for (const k of readdirSync(alternates)) if (/^\d+\.json$/.test(k)) names.push(`${entry.name}/alternates/${k}`);
    }
  }
  return names.sort();
}

let written = 0;
let wrong = 0;
const lanes = path.join(root, "lanes");
for (const provider of readdirSync(lanes, { withFileTypes: true })) {
  if (!provider.isDirectory()) continue;
  for (const name of oracleNames(path.join(lanes, provider.name))) {
    const cell = name.slice(0, -".json".length);
    const oracle = `lanes/${provider.name}/${name}`;
    const manifest = `recordings/${provider.name}/${cell}/manifest.json`;
    const dirty = git("status", "--porcelain", "--", oracle).trim() !== "";
    const last = dirty ? "" : git("log", "-1", "--format=%H", "--", oracle).trim();
    let version = last === "" ? undefined : manifestAt(last, manifest);
    if (version === undefined && last !== "") {
      // The recording was committed after its oracle: the first later commit that has its manifest.
      const later = git("log", "--reverse", "--format=%H", `${last}..HEAD`, "--", manifest).trim().split("\n").filter(Boolean);
      for (const commit of later) if ((version = manifestAt(commit, manifest)) !== undefined) break;
    }
    if (version === undefined && existsSync(path.join(root, manifest))) version = versionOf(readFileSync(path.join(root, manifest), "utf8"));
    if (version === undefined) {
      console.error(`${oracle}: no manifest of its recording (${manifest}): no sidecar`);
      continue;
    }
    const sidecar = path.join(lanes, provider.name, `${cell}.version`);
    const text = `${JSON.stringify({ cliVersion: version })}\n`;
    if (existsSync(sidecar) && readFileSync(sidecar, "utf8") === text) continue;
    wrong += 1;
    if (check) {
      console.error(`${path.relative(root, sidecar)}: ${existsSync(sidecar) ? "differs from" : "missing; should be"} ${JSON.stringify(version)}`);
      continue;
    }
    writeFileSync(sidecar, text);
    written += 1;
    console.log(`${path.relative(root, sidecar)}: ${version}${last === "" ? " (oracle not committed: today's manifest)" : ` (manifest at ${last.slice(0, 10)})`}`);
  }
}
if (check) {
  console.log(wrong === 0 ? "every oracle's version sidecar is in step" : `${wrong} sidecar(s) missing or different`);
  process.exit(wrong === 0 ? 0 : 1);
}
console.log(`${written} sidecar(s) written`);
