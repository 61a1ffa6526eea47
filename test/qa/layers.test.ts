import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The layers of harness/ (harness/README.md): recording → lanes → replay → compare → report →
// check (the gate) → cli, with families, runtime, record, conformance, rerecord, vitest and
// progress beside the chain. Each folder may import only what this table lists (and libraries);
// a new import against the chain fails here, naming the module and what it imports. The bridge
// families (harness/families/<family>/) are plug-ins: only the family list (families/index.ts)
// and its replay seams (families/replay-adapters.ts) import them, so no flow names a family; and
// no module of harness/ imports itself back.

const repoRoot = path.resolve(import.meta.dirname, "../..");
const FILES = ["errors.ts", "defaults.ts"];
const MAY_IMPORT: Record<string, readonly string[]> = {
  recording: ["stack/bridge-kit", "stack/protocol"],
  lanes: ["recording", "stack/assembler", "stack/protocol"],
  runtime: ["recording", "model-server", "stack/protocol", "stack/bridge-kit", "stack/assembler"],
  "model-server": [],
  // What it takes to run each agent offline, once per agent, for every family that runs it: data.
  agents: [],
  conformance: ["runtime", "stack/protocol", "stack/bridge-kit", "stack/assembler", "stack/acp"],
  // A family describes a bridge of stack/ (any package: a new family's bridge needs no line here).
  families: ["recording", "runtime", "model-server", "conformance", "agents", "stack/*"],
  record: ["recording", "lanes", "runtime", "model-server", "families", "stack/protocol", "stack/bridge-kit", "stack/assembler"],
  // A cell's facts (issue 37): computed in record's sandbox (network.ts), so one level above record.
  facts: ["recording", "runtime", "model-server", "families", "record", "stack/bridge-kit"],
  replay: ["recording", "lanes", "families", "runtime", "stack/protocol", "stack/bridge-kit"],
  // The truth judge reads an agent's diff with the bridges' own parsers (bridge-kit pi-diff.ts, structured-patch.ts).
  compare: ["recording", "lanes", "stack/protocol", "stack/assembler", "stack/bridge-kit"],
  report: ["recording", "lanes", "compare", "stack/protocol"],
  // check reads each cell's facts (harness/facts: the reader and the freshness hash) to judge lanes against them.
  check: ["recording", "lanes", "families", "replay", "compare", "report", "rerecord", "facts", "stack/protocol"],
  rerecord: ["recording", "lanes", "families", "replay", "compare", "report", "stack/protocol"],
  vitest: ["recording", "lanes", "replay", "compare", "report", "check"],
  progress: ["stack/bridge-kit"],
  cli: [
    "recording",
    "lanes",
    "families",
    "runtime",
    "model-server",
    "record",
    "facts",
    "conformance",
    "replay",
    "compare",
    "report",
    "check",
    "rerecord",
    "progress",
    "stack/protocol",
    "stack/bridge-kit",
    "stack/acp",
  ],
};

/** True when `target` is one of `entries` (an entry `stack/*` admits every package of stack/). */
function allowed(entries: readonly string[], target: string): boolean {
  return entries.some((entry) => (entry.endsWith("/*") ? target.startsWith(entry.slice(0, -1)) : entry === target));
}

/** The repository-relative paths (`harness/…/x.ts`) every `from "./…"` of `file` names, type imports included. */
function importedFiles(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/^\s*(?:import|export)[^"']*from\s+["'](\.[^"']+)["']/gm)].map((match) => path.relative(repoRoot, path.resolve(path.dirname(file), match[1]!)).replace(/\.js$/, ".ts"));
}

/** Every .ts file below `dir` (absolute paths). */
function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []));
}

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
  const folders = readdirSync(path.join(repoRoot, "harness"), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);

  it("every folder of harness/ has a place in the table", () => {
    expect(folders.filter((f) => !(f in MAY_IMPORT))).toEqual([]);
  });

  for (const folder of Object.keys(MAY_IMPORT)) {
    it(`${folder} imports only ${[...MAY_IMPORT[folder]!, ...FILES].join(", ")}`, () => {
      const dir = path.join(repoRoot, "harness", folder);
      const wrong: string[] = [];
      for (const file of walk(dir)) {
        for (const target of importsOf(file)) {
          if (target === folder || FILES.includes(target) || allowed(MAY_IMPORT[folder]!, target)) continue;
          wrong.push(`${path.relative(repoRoot, file)} imports ${target}`);
        }
      }
      expect(wrong).toEqual([]);
    });
  }

  it("nothing in stack/ or bench/ reaches into harness/cli; stack/ imports nothing of harness/", () => {
    const offenders: string[] = [];
    for (const file of walk(path.join(repoRoot, "stack"))) {
      for (const target of importsOf(file)) if (!target.startsWith("stack/") && !target.startsWith("package.json")) offenders.push(`${path.relative(repoRoot, file)} imports ${target}`);
    }
    for (const file of walk(path.join(repoRoot, "bench"))) {
      for (const target of importsOf(file)) if (target === "cli") offenders.push(`${path.relative(repoRoot, file)} imports harness/cli`);
    }
    expect(offenders).toEqual([]);
  });

  it("a family's folder (harness/families/<family>/) is imported only by the family lists (families/index.ts, families/replay-adapters.ts) and from inside itself", () => {
    const familiesDir = path.join("harness", "families");
    const offenders: string[] = [];
    for (const file of walk(path.join(repoRoot, "harness"))) {
      const from = path.relative(repoRoot, file);
      for (const target of importedFiles(file)) {
        const inside = path.relative(familiesDir, target).split(path.sep);
        if (inside[0] === ".." || inside.length < 2) continue; // not a family's folder
        const owner = path.join(familiesDir, inside[0]!);
        if (from === path.join(familiesDir, "index.ts") || from === path.join(familiesDir, "replay-adapters.ts") || from.startsWith(`${owner}${path.sep}`)) continue;
        offenders.push(`${from} imports ${target}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("no module of harness/ imports itself back (no import cycle, type imports included)", () => {
    const graph = new Map(walk(path.join(repoRoot, "harness")).map((file) => [path.relative(repoRoot, file), importedFiles(file).filter((t) => t.startsWith("harness"))]));
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const visit = (node: string, trail: string[]): void => {
      if (state.get(node) === "done") return;
      if (state.get(node) === "open") {
        cycles.push([...trail.slice(trail.indexOf(node)), node].join(" → "));
        return;
      }
      state.set(node, "open");
      for (const next of graph.get(node) ?? []) visit(next, [...trail, node]);
      state.set(node, "done");
    };
    for (const node of [...graph.keys()].sort()) visit(node, []);
    expect(cycles).toEqual([]);
  });
});

// The rooms of harness/replay (harness/replay/README.md): the causal walk on the plan, the agent
// stand-ins, the bridge process and the idleness judge; the bridge side (launch, pool) on the
// walk's queue; the root (live-replay, replay-recording, index) composes them all. The idleness
// judge is one room whether it is the root module `idleness.ts` or the folder `idleness/`.
const REPLAY_ROOT = path.join(repoRoot, "harness", "replay");
const REPLAY_ROOMS: Record<string, readonly string[]> = {
  plan: [],
  sandbox: [],
  "stand-ins": [],
  idleness: [],
  walk: ["plan", "stand-ins", "idleness"],
  bridge: ["walk"],
  ".": ["plan", "sandbox", "stand-ins", "idleness", "walk", "bridge"],
};

/** The room of a module of harness/replay (`.` for a root module), or undefined outside it. */
function replayRoomOf(file: string): string | undefined {
  const rel = path.relative(REPLAY_ROOT, file.replace(/\.js$/, ".ts")).split(path.sep);
  if (rel[0] === ".." || path.isAbsolute(rel[0]!)) return undefined;
  if (rel.length === 1) return rel[0] === "idleness.ts" ? "idleness" : ".";
  return rel[0];
}

describe("harness/replay rooms import down their layers", () => {
  const files = walk(REPLAY_ROOT);

  it("every room of harness/replay has a place in the table", () => {
    const rooms = readdirSync(REPLAY_ROOT, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(rooms.filter((room) => !(room in REPLAY_ROOMS))).toEqual([]);
  });

  for (const [room, allowedRooms] of Object.entries(REPLAY_ROOMS)) {
    it(`${room} imports only ${allowedRooms.join(", ") || "nothing"} of harness/replay beside itself`, () => {
      const wrong: string[] = [];
      for (const file of files.filter((f) => replayRoomOf(f) === room)) {
        for (const target of importedFiles(file)) {
          const to = replayRoomOf(path.join(repoRoot, target));
          if (to === undefined || to === room || allowedRooms.includes(to)) continue;
          wrong.push(`${path.relative(repoRoot, file)} imports ${target} (room ${to})`);
        }
      }
      expect(wrong).toEqual([]);
    });
  }
});
