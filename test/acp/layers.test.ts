/**
 * The rooms of stack/acp import what their READMEs say (stack/acp/README.md "Layers"), and no
 * module of stack/acp is in an import cycle, types included. A new import against the table, or a
 * new cycle, fails here naming the modules.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const acpRoot = path.join(repoRoot, "stack", "acp");
/** What every room may import from outside stack/acp (beside libraries). */
const STACK = ["stack/protocol", "stack/bridge-kit"];
/**
 * The rooms of stack/acp (`.` = its root modules), lowest first, and the rooms each may import.
 * A room may import only rooms listed before it (checked below): the table is the layer order,
 * with no exception, so no import inside stack/acp runs up.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  connection: [],
  maintenance: [],
  "fixture-agent": [],
  dialects: ["maintenance"],
  translate: ["dialects"],
  agents: ["connection", "dialects"],
  "model-data": ["agents"],
  state: ["connection", "dialects", "translate", "agents", "model-data"],
  "dynamic-tools": ["state"],
  models: ["connection", "dialects", "translate", "agents", "model-data", "state"],
  interaction: ["connection", "state", "dynamic-tools"],
  session: ["connection", "dialects", "translate", "agents", "model-data", "state", "dynamic-tools", "models", "interaction"],
  ".": ["connection", "maintenance", "dialects", "translate", "agents", "model-data", "state", "dynamic-tools", "models", "interaction", "session"],
};

function sourcesOf(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourcesOf(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

/** The repository files `file` imports or re-exports from (relative specifiers, types included). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/^\s*(?:import|export)[^"';]*from\s+["'](\.[^"']+)["']/gm)].map((match) => path.resolve(path.dirname(file), match[1]!).replace(/\.js$/, ".ts"));
}

/** `stack/acp/<room>/…` → the room (`.` for a root module); anything else → its `stack/<package>` or path. */
function roomOf(file: string): string {
  const rel = path.relative(acpRoot, file).split(path.sep);
  if (!rel[0]!.startsWith("..")) return rel.length === 1 ? "." : rel[0]!;
  const fromRepo = path.relative(repoRoot, file).split(path.sep);
  return fromRepo[0] === "stack" ? `stack/${fromRepo[1]}` : fromRepo.join("/");
}

const files = sourcesOf(acpRoot);

describe("stack/acp rooms import down their layers", () => {
  it("every room of stack/acp has a place in the table", () => {
    const rooms = readdirSync(acpRoot, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(rooms.filter((room) => !(room in MAY_IMPORT))).toEqual([]);
  });

  it("the table points down: every room may import only rooms listed before it, and nothing imports the root", () => {
    const order = Object.keys(MAY_IMPORT);
    const upward = Object.entries(MAY_IMPORT).flatMap(([room, allowed]) => allowed.filter((target) => order.indexOf(target) >= order.indexOf(room)).map((target) => `${room} may import ${target}`));
    expect(upward).toEqual([]);
  });

  it("the root holds at most 15 modules", () => {
    expect(files.filter((file) => roomOf(file) === ".").length).toBeLessThanOrEqual(15);
  });

  for (const [room, allowed] of Object.entries(MAY_IMPORT)) {
    it(`${room} imports only ${[...allowed, ...STACK].join(", ") || "nothing"} beside itself`, () => {
      const wrong: string[] = [];
      for (const file of files.filter((f) => roomOf(f) === room)) {
        for (const target of importsOf(file).map(roomOf)) {
          if (target === room || allowed.includes(target) || STACK.includes(target)) continue;
          wrong.push(`${path.relative(repoRoot, file)} imports ${target}`);
        }
      }
      expect(wrong).toEqual([]);
    });
  }

  it("no module of stack/acp is in an import cycle (type imports count)", () => {
    const graph = new Map(files.map((file) => [file, importsOf(file).filter((target) => files.includes(target))]));
    // Tarjan's strongly connected components; any component of two or more modules is a cycle.
    let counter = 0;
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const cycles: string[][] = [];
    const visit = (node: string): void => {
      index.set(node, counter);
      low.set(node, counter);
      counter += 1;
      stack.push(node);
      onStack.add(node);
      for (const next of graph.get(node)!) {
        if (!index.has(next)) {
          visit(next);
          low.set(node, Math.min(low.get(node)!, low.get(next)!));
        } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
      if (low.get(node) !== index.get(node)) return;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(path.relative(acpRoot, member));
      } while (member !== node);
      if (component.length > 1) cycles.push(component.sort());
    };
    for (const file of files) if (!index.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });
});
