import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// No command imports another (issue 40 build point 4): what two commands share lives in a module
// of its own (`gate-flags.ts` for the gate's flags, `allow-entry.ts` for appending an allowlist
// entry), and only the command table (`commands.ts`, lazily) names a command's module.

const cliDir = path.resolve(import.meta.dirname, "../../harness/cli");
const table = readFileSync(path.join(cliDir, "commands.ts"), "utf8");
/** The command modules, as the table imports them (`./check.js`). */
const commandModules = [...table.matchAll(/import\("(\.\/[\w-]+\.js)"\)/g)].map((m) => m[1]!);

describe("harness/cli: commands stand apart", () => {
  it("the table names every command module (so this test sees them)", () => {
    expect(commandModules.length).toBeGreaterThan(10);
    expect(commandModules).toContain("./check.js");
  });

  it("no module of harness/cli but the table imports a command's module", () => {
    const offenders: string[] = [];
    for (const file of readdirSync(cliDir).filter((f) => f.endsWith(".ts") && f !== "commands.ts")) {
      const text = readFileSync(path.join(cliDir, file), "utf8");
      for (const m of text.matchAll(/^\s*(?:import|export)[^"']*from\s+["'](\.\/[\w-]+\.js)["']/gm)) if (commandModules.includes(m[1]!)) offenders.push(`${file} imports ${m[1]}`);
    }
    expect(offenders).toEqual([]);
  });
});
