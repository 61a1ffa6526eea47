import { readFileSync } from "node:fs";
import { UsageError } from "../errors.js";
import type { Recording } from "../recording/reader.js";
import { recordScriptedCell } from "./record-cell.js";
import type { RuntimeScriptInput } from "./script.js";
import { packageDistPath } from "./spawn-bridge.js";

/** Working directory the echo scripts name (the echo never touches it). */
export const ECHO_CELL_CWD = "/tmp/parity-echo-ws";

/** One cell the echo bridge is recorded for: its manifest description and its runtime script. */
export interface EchoCell {
  description: string;
  script: RuntimeScriptInput;
}

const script = (threadId: string, steps: RuntimeScriptInput["steps"]): RuntimeScriptInput => ({
  threadId,
  cwd: ECHO_CELL_CWD,
  options: { permissionMode: "full" },
  steps,
});

/**
 * The echo bridge's recorded cells (00-product.md: "recordings/ … the echo bridge"), named
 * as the QA matrix names them. `parity record --provider echo` reads the same scripts from
 * `cells/<cell>/providers/echo.json` (test/record/echo-reproducible.test.ts keeps the two equal). Each script starts with `initialize` (recorded in
 * `_process`, so not part of the cell) and a `thread/start`.
 */
export const ECHO_CELLS: Readonly<Record<string, EchoCell>> = {
  turn: {
    description: "One prompt echoed back as a streamed agent message.",
    script: script("thr_echo_turn", [
      { op: "initialize" },
      { op: "thread/start" },
      { op: "turn/start", text: "Echo this sentence back, word by word." },
    ]),
  },
  "zero-work": {
    description: "A prompt that does no work (/clear) still opens and settles its turn.",
    script: script("thr_echo_zero_work", [{ op: "initialize" }, { op: "thread/start" }, { op: "turn/start", text: "/clear" }]),
  },
  "stop-interrupt": {
    description: "A turn interrupted by thread/stop, then a new turn on the resumed session.",
    script: script("thr_echo_stop_interrupt", [
      { op: "initialize" },
      { op: "thread/start" },
      { op: "turn/start", text: "/hold Working on a long task.", until: "turn/started" },
      { op: "thread/stop", intent: "interrupt" },
      { op: "thread/resume" },
      { op: "turn/start", text: "What is 2 + 2?" },
    ]),
  },
  resume: {
    description: "A turn, a release stop, then a turn on the resumed session.",
    script: script("thr_echo_resume", [
      { op: "initialize" },
      { op: "thread/start" },
      { op: "turn/start", text: "Remember the word ready." },
      { op: "thread/stop", intent: "release" },
      { op: "thread/resume" },
      { op: "turn/start", text: "Which word did I ask you to remember?" },
    ]),
  },
};

/** This package's version, the echo bridge's `cliVersion` in manifests. */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(packageDistPath("..", "package.json"), "utf8")) as { version?: string };
  return pkg.version ?? "0.0.0";
}

/**
 * Records every {@link ECHO_CELLS} cell (or those named) under `<recordingsRoot>/echo/`,
 * driving `dist/stack/echo/bridge.js` through the bootstrap in record mode. Existing
 * recordings are refused, never overwritten (see `recordScriptedCell`).
 * Run: `node -e 'import("./dist/harness/runtime/echo-cells.js").then((m) => m.recordEchoCells("recordings", Date.now))'`.
 */
export async function recordEchoCells(recordingsRoot: string, now: () => number, cells: string[] = Object.keys(ECHO_CELLS)): Promise<Recording[]> {
  const recorded: Recording[] = [];
  for (const cell of cells) {
    const definition = ECHO_CELLS[cell];
    if (!definition) throw new UsageError(`unknown echo cell "${cell}"; known: ${Object.keys(ECHO_CELLS).join(", ")}`);
    recorded.push(
      await recordScriptedCell({
        modulePath: packageDistPath("stack", "echo", "bridge.js"),
        providerId: "echo",
        cell,
        script: definition.script,
        recordingsRoot,
        cliVersion: `bridge-parity echo ${packageVersion()}`,
        description: definition.description,
        note: "Recorded by parity's runtime script driver against the echo bridge; the echo has no provider child, so both provider lanes are empty.",
        now,
      }),
    );
  }
  return recorded;
}
