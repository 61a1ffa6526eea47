/**
 * What a bare start of the ACP bridge evaluates (bench/README.md, "Counted in instructions"): no
 * module of stack/acp imports the ACP SDK's runtime values at import (its root module builds every
 * zod schema of ACP v1), nor `stack/protocol/index.js` (which builds the runtime's thread-event,
 * item and delta schemas); types are free. The SDK's elicitation guards are loaded on first use
 * (stack/acp/interaction/elicitation-guards.ts) and are the SDK's own. Every module of stack/ and the
 * replay child imports zod as a namespace (`import * as z from "zod"`): the spawned bundles then keep
 * only the zod they use; one `import { z }` takes in the whole `z` object, all of zod (build/README.md).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { elicitationRequestGuards } from "../../stack/acp/interaction/elicitation-guards.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const acpRoot = path.join(repoRoot, "stack", "acp");
const stackRoot = path.join(repoRoot, "stack");
/** Spawned by the replay beside the bridges, so bundled into the same chunks (build/bundle.ts). */
const replayChildSources = path.join(repoRoot, "harness", "replay", "stand-ins");

function sourcesOf(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourcesOf(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

/** Specifiers of the `import … from` and `export … from` statements that are not type-only. */
function valueImportsOf(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?\bfrom\s+"([^"]+)";/gms)) found.push(match[1]!);
  return found;
}

describe("the ACP bridge's start-up imports", () => {
  it("reads value imports and skips type-only ones", () => {
    expect(valueImportsOf('import type { A } from "x";\nimport { b,\n  type C } from "y";\nexport { d } from "z";\n')).toEqual(["y", "z"]);
  });

  it("no module imports the ACP SDK's values or the protocol's index", () => {
    const offending = sourcesOf(acpRoot).flatMap((file) =>
      valueImportsOf(readFileSync(file, "utf8"))
        .filter((specifier) => specifier.startsWith("@agentclientprotocol/sdk") || /(^|\/)protocol\/index\.js$/.test(specifier))
        .map((specifier) => `${path.relative(repoRoot, file)} imports ${specifier}`),
    );
    expect(offending).toEqual([]);
  });

  it("every module bundled for a bridge process imports zod's values as a namespace", () => {
    const namedZod = /^import\s+(?!type\b)(?!\*\s+as\s)[^;]*?\bfrom\s+"zod(?:\/[^"]*)?";/gms;
    expect('import { z } from "zod";\nimport * as y from "zod";\nimport type { z } from "zod";\n'.match(namedZod)).toEqual(['import { z } from "zod";']);
    const offending = [...sourcesOf(stackRoot), ...sourcesOf(replayChildSources)].flatMap((file) =>
      (readFileSync(file, "utf8").match(namedZod) ?? []).map((statement) => `${path.relative(repoRoot, file)}: ${statement}`),
    );
    expect(offending).toEqual([]);
  });

  it("the elicitation guards loaded on first use are the SDK's own", async () => {
    const sdk = await import("@agentclientprotocol/sdk");
    const guards = elicitationRequestGuards();
    // Requests as an agent may send them: read as the guards' parameter, malformed ones included.
    const asRequest = (value: unknown) => value as Parameters<typeof guards.isForm>[0];
    const form = asRequest({ sessionId: "s", mode: "form", message: "Name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } });
    expect(guards.isForm(form)).toBe(sdk.CreateElicitationRequest.isForm(form));
    expect(guards.isForm(form)).toBe(true);
    expect(guards.isUrl(asRequest({ sessionId: "s", mode: "url", message: "Open", url: "https://example.invalid/x", elicitationId: "e1" }))).toBe(true);
    expect(guards.isForm(asRequest({ sessionId: "s", mode: "form", message: 3 }))).toBe(false);
  });
});
