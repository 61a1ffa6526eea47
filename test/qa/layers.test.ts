import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The layers of harness/ (harness/README.md): recording → lanes → replay → compare → report →
// check (the gate) → cli, with adapters, runtime, record, conformance, rerecord, vitest and
// progress beside the chain. Each folder may import only what this table lists (and libraries);
// a new import against the chain fails here, naming the module and what it imports.

const repoRoot = path.resolve(import.meta.dirname, "../..");
const FILES = ["errors.ts", "defaults.ts"];
const MAY_IMPORT: Record<string, readonly string[]> = {
  recording: ["stack/bridge-kit", "stack/protocol"],
  lanes: ["recording", "stack/assembler", "stack/protocol"],
  adapters: ["stack/acp", "stack/echo", "stack/protocol"],
  runtime: ["recording", "stack/protocol", "stack/bridge-kit", "stack/assembler"],
  "model-server": [],
  record: ["recording", "lanes", "runtime", "model-server", "adapters", "stack/protocol", "stack/bridge-kit", "stack/assembler", "stack/acp"],
  conformance: ["runtime", "stack/protocol", "stack/bridge-kit", "stack/assembler", "stack/acp", "stack/pi"],
  replay: ["recording", "lanes", "adapters", "stack/protocol"],
  compare: ["recording", "lanes", "stack/protocol", "stack/assembler"],
  report: ["recording", "lanes", "compare", "stack/protocol"],
  check: ["recording", "lanes", "adapters", "replay", "compare", "report", "stack/protocol"],
  rerecord: ["recording", "lanes", "adapters", "replay", "compare", "report", "stack/protocol"],
  vitest: ["recording", "lanes", "replay", "compare", "report", "check"],
  progress: [],
  cli: ["recording", "lanes", "adapters", "runtime", "model-server", "record", "conformance", "replay", "compare", "report", "check", "rerecord", "progress", "stack/protocol", "stack/bridge-kit", "stack/acp"],
};

/** Where each `from "…"` of `file` points inside the repository: a harness folder, a harness file, or `stack/<package>`. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const targets: string[] = [];
  for (const match of text.matchAll(/^\s*(?:import|export)[^"']*from\s+["'](\.[^"']+)["']/gm)) {
    const rel = path.relative(repoRoot, path.resolve(path.dirname(file), match[1]!)).split(path.sep);
    if (rel[0] === "stack") targets.push(`stack/${rel[1]}`);
    else if (rel[0] === "harness") targets.push(rel.length === 2 ? rel[1]!.replace(/\.js$/, ".ts") : rel[1]!);
    else targets.push(rel.join("/"));
  }
  return targets;
}

describe("harness/ imports point down its layers", () => {
  const folders = readdirSync(path.join(repoRoot, "harness"), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);

  it("every folder of harness/ has a place in the table", () => {
    expect(folders.filter((f) => !(f in MAY_IMPORT))).toEqual([]);
  });

  for (const folder of Object.keys(MAY_IMPORT)) {
    it(`${folder} imports only ${[...MAY_IMPORT[folder]!, ...FILES].join(", ")}`, () => {
      const dir = path.join(repoRoot, "harness", folder);
      const wrong: string[] = [];
      for (const name of readdirSync(dir).filter((n) => n.endsWith(".ts"))) {
        for (const target of importsOf(path.join(dir, name))) {
          if (target === folder || FILES.includes(target) || MAY_IMPORT[folder]!.includes(target)) continue;
          wrong.push(`harness/${folder}/${name} imports ${target}`);
        }
      }
      expect(wrong).toEqual([]);
    });
  }

  it("nothing in stack/ or bench/ reaches into harness/cli; stack/ imports nothing of harness/", () => {
    const offenders: string[] = [];
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []));
    for (const file of walk(path.join(repoRoot, "stack"))) {
      for (const target of importsOf(file)) if (!target.startsWith("stack/") && !target.startsWith("package.json")) offenders.push(`${path.relative(repoRoot, file)} imports ${target}`);
    }
    for (const file of walk(path.join(repoRoot, "bench"))) {
      for (const target of importsOf(file)) if (target === "cli") offenders.push(`${path.relative(repoRoot, file)} imports harness/cli`);
    }
    expect(offenders).toEqual([]);
  });
});
