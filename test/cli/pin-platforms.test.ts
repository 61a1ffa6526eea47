/**
 * `drift --accept`'s pin move and the other platforms' builds in the lockfile (issue 41). An agent
 * ships a binary per platform as optionalDependencies (codex: `"@openai/codex-darwin-arm64":
 * "npm:@openai/codex@0.171.0-darwin-arm64"`, …). The last session saw `npm install
 * --package-lock-only` keep only the linux entries when it moved codex to 0.170.0 and took it for
 * npm writing this platform's packages only; it is not: the registry this box reads has only
 * 0.170.0's linux builds, and npm drops an optional dependency it cannot fetch without a word
 * (moving to 0.169.1, whose six builds are there, keeps all six). Reproduced here with the real
 * npm against a registry on loopback that serves the same shapes: the move that would lose a
 * platform is refused and leaves both files as they were; a complete version keeps every platform.
 */
import { createHash } from "node:crypto";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lostOptionalDependencies, movePin, npmClient } from "../../harness/cli/drift-accept.js";

const NAME = "@parity-test/agent";
const PLATFORMS = [
  ["linux", "x64"],
  ["darwin", "arm64"],
] as const;
/** The versions the registry serves, each with the platforms whose builds it has: 1.1.0 lacks darwin, as codex 0.170.0 does here. */
const PUBLISHED: Record<string, ReadonlyArray<(typeof PLATFORMS)[number]>> = { "1.0.0": PLATFORMS, "1.1.0": [PLATFORMS[0]], "1.2.0": PLATFORMS };

let work = "";
let server: Server | undefined;
let registry = "";

/** The packument of NAME as the npm registry serves it: a version package declaring every platform build, and the builds published. */
function packument(): object {
  const versions: Record<string, object> = {};
  const integrity = (v: string) => `sha512-${createHash("sha512").update(v).digest("base64")}`;
  const dist = (v: string) => ({ tarball: `${registry}/tarballs/${v}.tgz`, integrity: integrity(v) });
  for (const [version, builds] of Object.entries(PUBLISHED)) {
    const optionalDependencies = Object.fromEntries(PLATFORMS.map(([o, cpu]) => [`${NAME}-${o}-${cpu}`, `npm:${NAME}@${version}-${o}-${cpu}`]));
    versions[version] = { name: NAME, version, license: "MIT", optionalDependencies, dist: dist(version) };
    for (const [o, cpu] of builds) versions[`${version}-${o}-${cpu}`] = { name: NAME, version: `${version}-${o}-${cpu}`, license: "MIT", os: [o], cpu: [cpu], dist: dist(`${version}-${o}-${cpu}`) };
  }
  return { name: NAME, "dist-tags": { latest: "1.2.0" }, versions };
}

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "parity-pin-platforms-"));
  server = createServer((req, res) => {
    if (decodeURIComponent(req.url ?? "") === `/${NAME}`) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(packument()));
      return;
    }
    res.writeHead(404, { "content-type": "application/json" });
    res.end('{"error":"not found"}');
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  await rm(work, { recursive: true, force: true });
});

/** npm's environment: the loopback registry, its cache and HOME in the test's temp dir. */
function npmEnv(): NodeJS.ProcessEnv {
  const home = path.join(work, "home");
  return {
    ...process.env,
    HOME: home,
    npm_config_registry: registry,
    npm_config_cache: path.join(work, "npm-cache"),
    npm_config_userconfig: path.join(home, ".npmrc"),
    npm_config_update_notifier: "false",
  };
}

let n = 0;
/** A project whose agents/ pins NAME at 1.0.0, its lockfile written by the real npm from the registry. */
async function project(): Promise<string> {
  n += 1;
  const dir = path.join(work, `p${n}`);
  await mkdir(path.join(dir, "agents"), { recursive: true });
  await mkdir(path.join(work, "home"), { recursive: true });
  await writeFile(path.join(dir, "agents", "package.json"), `${JSON.stringify({ name: "agents", version: "0.0.0", private: true, dependencies: { [NAME]: "1.0.0" } }, null, 2)}\n`);
  await promisify(execFile)("npm", ["install", "--package-lock-only", "--no-audit", "--no-fund", "--ignore-scripts"], { cwd: path.join(dir, "agents"), env: npmEnv() });
  return dir;
}

const platformEntries = async (dir: string) =>
  Object.entries((JSON.parse(await readFile(path.join(dir, "agents", "package-lock.json"), "utf8")) as { packages: Record<string, { version?: string }> }).packages)
    .filter(([key]) => key.startsWith(`node_modules/${NAME}-`))
    .map(([key, entry]) => `${key.slice("node_modules/".length)} ${entry.version ?? ""}`)
    .sort();

describe("the pin move keeps every platform's build in the lockfile", () => {
  it("npm writes every platform's build it can fetch, whatever this host is", async () => {
    const dir = await project();
    expect(await platformEntries(dir)).toEqual([`${NAME}-darwin-arm64 1.0.0-darwin-arm64`, `${NAME}-linux-x64 1.0.0-linux-x64`]);
    const moved = await movePin(NAME, "1.2.0", dir, npmClient(npmEnv()));
    expect(moved).toMatchObject({ file: path.join(dir, "agents", "package.json"), package: NAME, from: "1.0.0", to: "1.2.0" });
    expect(await platformEntries(dir)).toEqual([`${NAME}-darwin-arm64 1.2.0-darwin-arm64`, `${NAME}-linux-x64 1.2.0-linux-x64`]);
  });

  it("a version whose darwin build the registry lacks: refused in one line naming it, the manifest and lockfile as they were", async () => {
    const dir = await project();
    const manifest = await readFile(path.join(dir, "agents", "package.json"), "utf8");
    const lock = await readFile(path.join(dir, "agents", "package-lock.json"), "utf8");
    const moving = movePin(NAME, "1.1.0", dir, npmClient(npmEnv()));
    await expect(moving).rejects.toMatchObject({
      code: "E_PIN",
      exitCode: 5,
      message: `npm could not keep an optional dependency of ${NAME}@1.1.0 that ${path.join("agents", "package-lock.json")} had: ${NAME}-darwin-arm64 (npm:${NAME}@1.1.0-darwin-arm64) — npm drops one it cannot fetch (the registry it reads has no such build?); nothing moved`,
    });
    expect(await readFile(path.join(dir, "agents", "package.json"), "utf8")).toBe(manifest);
    expect(await readFile(path.join(dir, "agents", "package-lock.json"), "utf8")).toBe(lock);
  });
});

describe("lostOptionalDependencies", () => {
  const lockOf = (packages: Record<string, object>) => JSON.stringify({ lockfileVersion: 3, packages });
  const declaring = (version: string) => ({ version, optionalDependencies: { "a-darwin": `npm:a@${version}-darwin`, "a-linux": `npm:a@${version}-linux` } });

  it("names a build the lockfile resolved before and not after, found where node looks (nested, then up)", () => {
    const before = lockOf({ "node_modules/a": declaring("1"), "node_modules/a/node_modules/a-darwin": {}, "node_modules/a-linux": {} });
    expect(lostOptionalDependencies(before, lockOf({ "node_modules/a": declaring("2"), "node_modules/a-linux": {} }))).toEqual([
      { declaredBy: "node_modules/a", name: "a-darwin", spec: "npm:a@2-darwin" },
    ]);
    expect(lostOptionalDependencies(before, lockOf({ "node_modules/a": declaring("2"), "node_modules/a-linux": {}, "node_modules/a-darwin": {} }))).toEqual([]);
  });

  it("a build the lockfile never had (never published) is not lost; an unreadable lockfile loses nothing", () => {
    const before = lockOf({ "node_modules/a": declaring("1"), "node_modules/a-linux": {} });
    expect(lostOptionalDependencies(before, lockOf({ "node_modules/a": declaring("2"), "node_modules/a-linux": {} }))).toEqual([]);
    expect(lostOptionalDependencies("not json", lockOf({ "node_modules/a": declaring("2") }))).toEqual([]);
  });
});
