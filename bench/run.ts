import path from "node:path";
import { fileURLToPath } from "node:url";
import { BENCHES } from "./benches.js";

/*
 * `npm run bench` (compiled to dist/bench/run.js): runs every benchmark in `benches.ts`, or
 * only `--bench <name>`, printing each one's table and one JSON line. Exit 0 when every target
 * was met, 1 when one was missed, 2 on a bad flag or input. This module is the entry point only.
 */

function parseFlags(argv: string[]): Map<string, string> {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i] ?? "";
    const value = argv[i + 1];
    if (!name.startsWith("--") || value === undefined) throw new Error(`expected --flag value pairs, got "${name}"`);
    values.set(name, value);
    i++;
  }
  return values;
}

/** `npm run bench -- --help`: the benches and their flags. */
export function benchUsage(): string {
  const lines = ["usage: npm run bench [-- --bench <name>] [--<flag> <value> …]", "benches:"];
  for (const b of BENCHES) lines.push(`  ${b.name}${b.flags.length > 0 ? `  flags: ${b.flags.join(", ")}` : ""}`);
  lines.push("Exit 0 when every target is met, 1 when one is missed, 2 on a bad flag or input.");
  return `${lines.join("\n")}\n`;
}

async function main(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(benchUsage());
    return 0;
  }
  const values = parseFlags(argv);
  const only = values.get("--bench");
  const selected = BENCHES.filter((b) => only === undefined || b.name === only);
  if (selected.length === 0) throw new Error(`unknown --bench ${only}; benches: ${BENCHES.map((b) => b.name).join(", ")}`);
  const known = new Set(["--bench", ...selected.flatMap((b) => b.flags)]);
  for (const name of values.keys()) if (!known.has(name)) throw new Error(`unknown flag ${name}; known: ${[...known].join(", ")}`);
  const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
  const print = (text: string): void => void process.stdout.write(text);
  let allMet = true;
  for (const bench of selected) {
    const outcome = await bench.run({ values, packageRoot, print });
    print(`${JSON.stringify(outcome.json)}\n`);
    allMet &&= outcome.targetMet;
  }
  return allMet ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
  return 2;
});
