import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/run-cli.js";

// Issue 25 (start-up): `import { z } from "zod"` takes in zod's whole `z` object, so esbuild keeps
// all of zod in whatever bundle holds the module; `import * as z from "zod"` lets it keep only what
// is used (build/README.md). The bridges' bundles are held to it in test/acp/start-up-imports.test.ts;
// the CLI's (check's late script among them) here: measured, it shrank the script from 1.10 to 0.91 MB.
const namedZod = /^import\s+(?!type\b)(?!\*\s+as\s)[^;]*?\bfrom\s+"zod(?:\/[^"]*)?";/gms;

function sourcesOf(dir: string): string[] {
  return readdirSync(path.join(repoRoot, dir), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".d.ts"))
    .map((name) => path.join(repoRoot, dir, name));
}

describe("zod imports of the CLI's sources", () => {
  it("every module under harness/ and bench/ imports zod's values as a namespace", () => {
    expect('import { z } from "zod";\nimport * as y from "zod";\nimport type { z } from "zod";\n'.match(namedZod)).toEqual(['import { z } from "zod";']);
    const offending = [...sourcesOf("harness"), ...sourcesOf("bench")].flatMap((file) =>
      (readFileSync(file, "utf8").match(namedZod) ?? []).map((statement) => `${path.relative(repoRoot, file)}: ${statement}`),
    );
    expect(offending).toEqual([]);
  });
});
