import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkBridgeModuleFlag } from "../../harness/cli/flag-checks.js";
import { EXIT_CODES, ParityError } from "../../harness/errors.js";
import { createFakeScheduler } from "../helpers/fake-scheduler.js";
import { runCli } from "./run-cli.js";

// Issue 42 point 4: a `--module` whose top-level await never settles was told it "must not call
// process.exit" (Node ends such a process itself, exit code 13). Now it is told what happened; and
// a module still loading at the limit is an infrastructure timeout (exit 4), not a usage error.

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "parity-module-tla-"));
  await writeFile(path.join(dir, "never.mjs"), "await new Promise(() => {});\nexport const experimental_providerBridge = { handleLine() {} };\n");
  const marker = path.join(dir, "waiting");
  await writeFile(
    path.join(dir, "pending.mjs"),
    `import { writeFileSync } from "node:fs";\nsetInterval(() => {}, 1000);\nwriteFileSync(${JSON.stringify(marker)}, "");\nawait new Promise(() => {});\nexport const experimental_providerBridge = { handleLine() {} };\n`,
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("--module whose top-level await does not finish (issue 42 point 4)", () => {
  it("an await nothing can settle: exit 2, one line saying so, not 'must not call process.exit'", async () => {
    const r = await runCli(["check", "--provider", "echo", "--cell", "turn", "--module", path.join(dir, "never.mjs")]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      `parity: --module ${path.join(dir, "never.mjs")}: its top-level await never settles (Node stopped it, exit code 13: nothing was left that could settle it), so the module never finishes loading\n`,
    );
    expect(r.err).not.toContain("process.exit");
  });

  it("a module still loading at the limit (a pending timer keeps it alive): an infrastructure timeout, exit 4", async () => {
    const scheduler = createFakeScheduler();
    const checked = checkBridgeModuleFlag(path.join(dir, "pending.mjs"), dir, "module", { scheduler }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    // Progress-based: the limit is reached on the fake clock only once the module sits in its await.
    while (!existsSync(path.join(dir, "waiting"))) await new Promise((resolve) => setTimeout(resolve, 20));
    scheduler.advance(60_000);
    const thrown = await checked;
    expect(thrown).toBeInstanceOf(ParityError);
    expect((thrown as ParityError).exitCode).toBe(EXIT_CODES.infrastructureTimeout);
    expect((thrown as ParityError).message).toBe(
      `--module ${path.join(dir, "pending.mjs")}: did not finish loading within 60 s (its top-level code was still waiting); infrastructure timeout, nothing was replayed`,
    );
  });
});
