/**
 * Entry of the pi fixture agent: `node main.js --script <file> | --script-json <json> [pi's flags…]`.
 * Reads commands on stdin (LF-framed JSON lines), writes pi's lines on stdout, exits when stdin ends.
 */
import { readFileSync } from "node:fs";
import { createBoundedLineSplitter } from "../../bridge-kit/line-splitter.js";
import { createPiFixtureAgent } from "./agent.js";
import { FixtureScriptSchema } from "./script.js";

const argv = process.argv.slice(2);
const flag = (name: string) => {
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1] : undefined;
};
const file = flag("--script");
const inline = flag("--script-json");
const parsed = FixtureScriptSchema.safeParse(JSON.parse(inline ?? (file ? readFileSync(file, "utf8") : "{}")));
if (!parsed.success) {
  process.stderr.write(`pi fixture agent: bad script: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}\n`);
  process.exit(2);
}
const agent = createPiFixtureAgent(parsed.data, argv, { write: (line) => process.stdout.write(`${line}\n`) });
const splitter = createBoundedLineSplitter({ onLine: (line) => agent.onLine(line) });
process.stdin.on("data", (chunk: Buffer) => splitter.push(chunk));
process.stdin.on("end", () => {
  splitter.end();
  process.exit(0);
});
