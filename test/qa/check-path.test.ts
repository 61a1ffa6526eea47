/**
 * What `parity check` loads before it replays (issue 25, start-up): the static import closure of
 * the command's module, followed through the sources as the bundler follows it (`import … from`
 * and `export … from`, type imports left out, since they are erased; `await import()` is lazy and
 * not followed). The gate replays through the families' replay seams only
 * (harness/families/replay-adapters.ts): the record, conform and probe code of every family, the
 * conformance sessions, the model server and the ACP bridge's own modules stay unloaded.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const repoRoot = path.resolve(import.meta.dirname, "../..");

/** Repository-relative `.ts` files `file` imports at run time (relative specifiers; `import type` skipped). */
function runtimeImports(file: string): string[] {
  const text = readFileSync(path.join(repoRoot, file), "utf8");
  const found: string[] = [];
  for (const match of text.matchAll(/^\s*(import|export)(\s+type\b)?[^"'`;]*?\bfrom\s+["'](\.[^"']+)["']|^\s*import\s+["'](\.[^"']+)["']/gm)) {
    if (match[2] !== undefined) continue;
    const spec = match[3] ?? match[4]!;
    found.push(path.relative(repoRoot, path.resolve(path.dirname(path.join(repoRoot, file)), spec)).replace(/\.js$/, ".ts"));
  }
  return found.filter((f) => existsSync(path.join(repoRoot, f)));
}

/** The packages `file` imports at run time (bare specifiers, `node:` built-ins left out; `import type` skipped). */
function runtimePackages(file: string): string[] {
  const text = readFileSync(path.join(repoRoot, file), "utf8");
  const found: string[] = [];
  for (const match of text.matchAll(/^\s*(import|export)(\s+type\b)?[^"'`;]*?\bfrom\s+["']([^."'][^"']*)["']|^\s*import\s+["']([^."'][^"']*)["']/gm)) {
    if (match[2] !== undefined) continue;
    const spec = match[3] ?? match[4]!;
    if (!spec.startsWith("node:")) found.push(spec);
  }
  return found;
}

/** Every module reached from `entry` through run-time imports, each with the chain that reached it. */
function closure(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>([[entry, [entry]]]);
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const next of runtimeImports(file)) {
      if (seen.has(next)) continue;
      seen.set(next, [...seen.get(file)!, next]);
      queue.push(next);
    }
  }
  return seen;
}

describe("the check command's load path", () => {
  // What `check` loads: its module, and once its bridges are spawned, check-finish.ts (`await import`).
  const early = closure("harness/cli/check.ts");
  const loaded = new Map([...closure("harness/cli/check-finish.ts"), ...early]);

  it("reaches the replay seams of every shipped family (the check replays them all)", () => {
    expect([...loaded.keys()]).toEqual(expect.arrayContaining(["harness/families/replay-adapters.ts", "harness/families/acp/launch.ts", "harness/families/pi/launch.ts"]));
  });

  it("loads no family list, record, conform or probe code, conformance, model server or ACP bridge module", () => {
    const heavy = (file: string): boolean =>
      file === "harness/families/index.ts" ||
      /^harness\/families\/[^/]+\/(index|conform|probe|profiles?|agent-profiles|fixture-agents|custom-agents|record)\.ts$/.test(file) ||
      /^harness\/(conformance|model-server|record)\//.test(file) ||
      (file.startsWith("stack/acp/") && file !== "stack/acp/dialects/commands.ts");
    const chains = [...loaded].filter(([file]) => heavy(file)).map(([, chain]) => chain.join(" → "));
    expect(chains).toEqual([]);
  });

  it("spawns its bridges from a light graph: the selection and the bridge pool, no comparator, assembler, allowlist globbing, replay walk, reporter or check-finish.ts (issue 25)", () => {
    expect([...early.keys()]).toEqual(expect.arrayContaining(["harness/check/gate-start.ts", "harness/replay/bridge/bridge-pool.ts", "harness/recording/select.ts"]));
    const late = (file: string): boolean =>
      /^harness\/(compare|lanes)\//.test(file) ||
      (file.startsWith("harness/report/") && file !== "harness/report/reporter-names.ts") ||
      file.startsWith("stack/assembler/") ||
      /^harness\/replay\/(walk\/(?!event-queue)|plan\/|idleness|live-replay|replay-recording)/.test(file) ||
      /^harness\/check\/(gate|check-cells|batch|pending)\.ts$/.test(file) ||
      file === "harness/cli/check-finish.ts";
    const chains = [...early].filter(([file]) => late(file)).map(([, chain]) => chain.join(" → "));
    expect(chains).toEqual([]);
    // Nor zod, nor any schema built on import (the recording reader's, a bridge's launch schema):
    // the selection finds cells by their files' names (harness/recording/locations.ts).
    const packages = [...early].flatMap(([file, chain]) => runtimePackages(file).map((spec) => `${chain.join(" → ")} → ${spec}`));
    expect(packages.filter((chain) => /→ zod(\/|$)/.test(chain))).toEqual([]);
    expect([...early.keys()]).toEqual(expect.arrayContaining(["harness/recording/locations.ts", "harness/families/codex/launch.ts"]));
    expect([...early.keys()].filter((file) => /^harness\/recording\/(reader|lane-entry|manifest)\.ts$|^stack\/codex\/launch\.ts$/.test(file))).toEqual([]);
    // The late part is loaded by check-finish.ts: the pattern above finds it (this test can fail).
    expect([...loaded.keys()].filter(late)).toEqual(expect.arrayContaining(["harness/compare/allowlist.ts", "harness/check/gate.ts", "harness/report/reporters.ts"]));
    // …and zod with it: the package pattern above finds it there (this test can fail too).
    expect([...loaded.keys()].some((file) => file.endsWith(".ts") && runtimePackages(file).includes("zod"))).toBe(true);
  });
});
