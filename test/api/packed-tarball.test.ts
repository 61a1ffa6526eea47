import { execFileSync, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { extraCaCertsEnv } from "../helpers/no-extra-ca-certs.js";
import { repoRoot } from "../helpers/run-cli.js";

// The packed package in a scratch project: `npm pack`, unpack into node_modules/bridge-parity
// (its dependencies and vitest linked from this checkout's node_modules: no network), then the
// user's own vitest run uses bridge-parity/vitest's helper and matcher on the packaged
// recordings, found through the exported bridge-parity/package.json.

let work = "";
let project = "";
beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "parity-pack-"));
  project = path.join(work, "project");
  const installed = path.join(project, "node_modules", "bridge-parity");
  await mkdir(installed, { recursive: true });
  // The suite runs after `npm run build`; --ignore-scripts packs that dist as is. npm is the one
  // registry client of the suite: it gets back the CA bundle the run took out (vitest.config.ts),
  // though packing reads no network.
  const env = { ...process.env, ...extraCaCertsEnv() };
  const packed = JSON.parse(execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], { cwd: repoRoot, env, encoding: "utf8" })) as Array<{ filename: string }>;
  execFileSync("tar", ["-xzf", path.join(work, packed[0]!.filename), "-C", installed, "--strip-components=1"]);
  const manifest = JSON.parse(await readFile(path.join(repoRoot, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  for (const name of [...Object.keys(manifest.dependencies), "vitest"]) {
    const link = path.join(project, "node_modules", name);
    await mkdir(path.dirname(link), { recursive: true });
    await symlink(path.join(repoRoot, "node_modules", name), link, "dir");
  }
  await writeFile(path.join(project, "package.json"), JSON.stringify({ name: "user-project", private: true, type: "module" }));
  await writeFile(
    path.join(project, "parity.test.ts"),
    `import { createRequire } from "node:module";
import path from "node:path";
import { expect, test } from "vitest";
import { checkCell, parityMatchers } from "bridge-parity/vitest";

expect.extend(parityMatchers);
const pkg = path.dirname(createRequire(import.meta.url).resolve("bridge-parity/package.json"));
const where = { recordings: path.join(pkg, "recordings"), lanes: path.join(pkg, "lanes") };

test("the packaged echo turn keeps parity (helper)", async () => {
  const result = await checkCell({ provider: "echo", cell: "turn", ...where });
  expect(result.status).toBe("pass");
  expect(result).toMatchParityOracle();
});

test("the packaged echo resume keeps parity (matcher)", async () => {
  await expect({ provider: "echo", cell: "resume", ...where }).toMatchParityOracle();
});

test("a wrong oracle fails the matcher with the diff", async () => {
  const result = await checkCell({ provider: "echo", cell: "turn", recordings: where.recordings, lanes: path.join(pkg, "lanes-none") });
  expect(() => expect(result).toMatchParityOracle()).toThrow(/missing oracle/);
});
`,
  );
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe("the packed tarball in a user's project", () => {
  it("exports ./vitest and ./package.json, and a vitest suite using checkCell and toMatchParityOracle passes", () => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("VITEST") && key !== "NODE_OPTIONS" && key !== "TEST"));
    // --testTimeout only bounds a hang (under this file's own 180 s, so a hang shows its output):
    // vitest's default 5 s per test fired once at load 25+ while the packaged replays were still
    // running, which is the machine's share, not the package's.
    const r = spawnSync(process.execPath, [path.join(project, "node_modules", "vitest", "vitest.mjs"), "run", "--root", project, "--reporter", "verbose", "--testTimeout", "120000"], {
      cwd: project,
      env: { ...env, CI: "true", NO_COLOR: "1" },
      encoding: "utf8",
    });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/✓ parity\.test\.ts > the packaged echo turn keeps parity \(helper\)/);
    expect(r.stdout).toMatch(/✓ parity\.test\.ts > the packaged echo resume keeps parity \(matcher\)/);
    expect(r.stdout).toMatch(/Tests {2}3 passed \(3\)/);
  });
});
