/**
 * Test helper: a scratch project for `parity record --custom-agents` tests — a temp root whose
 * own `tmp/` becomes `TMPDIR` (so a test can see what recording leaves behind) and a one-turn
 * cell `cells/one-turn` under it.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { vi } from "vitest";

/** Creates the scratch root (pushed onto `dirs` for cleanup) and the cell; returns the root. */
export function oneTurnCellRoot(dirs: string[], prefix: string, threadId: string): string {
  const root = mkdtempSync(path.join(tmpdir(), prefix));
  dirs.push(root);
  const temp = path.join(root, "tmp");
  mkdirSync(temp);
  vi.stubEnv("TMPDIR", temp);
  const cell = path.join(root, "cells", "one-turn");
  mkdirSync(cell, { recursive: true });
  writeFileSync(
    path.join(cell, "cell.json"),
    JSON.stringify({
      description: "One prompt answered with a short message.",
      threadId,
      options: { permissionMode: "full" },
      steps: [{ op: "initialize" }, { op: "thread/start" }, { op: "turn/start", text: "Say hello." }],
    }),
  );
  return root;
}
