import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { processesWorkingIn } from "../../harness/record/leftovers.js";
import { opencodeBinary } from "../../harness/families/record-provider.js";
import { NETWORK_NETNS } from "../../harness/record/network.js";
import { recordCell } from "../../harness/record/record-cell.js";
import { readRecording } from "../../harness/recording/reader.js";
import { repoRoot } from "../cli/run-cli.js";
import { crossRunVerdict } from "../helpers/cross-run.js";
import { listeningSockets, type ListeningSocket } from "./listening.js";

const committedOracle = path.join(repoRoot, "lanes", "acp-opencode", "turn-tools.json");
const committedRecording = path.join(repoRoot, "recordings", "acp-opencode", "turn-tools");
const root = mkdtempSync(path.join(tmpdir(), "opencode-live-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.skipIf(!existsSync(opencodeBinary()) || !existsSync(committedOracle))("live opencode recording (acp-opencode turn-tools)", () => {
  it("records real read/edit/bash work, listens on loopback only, and passes check against the committed oracle", async () => {
    const sockets: ListeningSocket[] = [];
    let runRoot = "";
    const result = await recordCell({
      providerId: "acp-opencode",
      cell: "turn-tools",
      cellsRoot: path.join(repoRoot, "cells"),
      outRoot: path.join(root, "recordings"),
      lanesRoot: path.join(root, "lanes"),
      redact: [],
      now: () => Date.now(),
      tempParent: root,
      onStep: (_index, step, info) => {
        runRoot = info.root;
        // opencode runs from thread/start on; by the prompt step it (and its HTTP server) is up.
        if (step.op !== "turn/start") return;
        const pids = [...processesWorkingIn(info.root), ...(info.bridgePid ? [info.bridgePid] : []), process.pid];
        sockets.push(...listeningSockets(pids));
      },
    });
    // opencode's own HTTP server (`--port 0` tries 4096, then a free port, so parallel
    // recordings do not collide) and the model endpoint, all on loopback. In a network
    // namespace the endpoint is a Unix socket (reached through the namespace's forwarder on
    // 127.0.0.1), else a TCP port of this process.
    const recording = await readRecording(result.dir);
    expect(sockets.some((s) => s.pid === process.pid)).toBe(recording.manifest.network !== NETWORK_NETNS);
    expect(sockets.some((s) => s.pid !== process.pid)).toBe(true);
    expect(sockets.filter((s) => !s.loopback)).toEqual([]);
    expect(existsSync(runRoot)).toBe(false);

    const providerLines = recording.lanes["provider→bridge"].map((e) => e.line).join("\n");
    for (const tool of ['"kind":"read"', '"kind":"edit"', '"kind":"execute"']) expect(providerLines).toContain(tool);
    expect(result.grammarDrops).toBe((await import("../../harness/lanes/index.js")).buildThreadLane(await readRecording(committedRecording)).grammarDrops.length);
    // A second recording of the cell passes check against the committed oracle: it differs only in
    // fields the normalization blanks and in what a run-to-run rule names (test/helpers/cross-run.ts). (This
    // once failed under CI load: opencode writes the file itself around fs/write_text_file, and
    // the bridge read the old text at write time; it now diffs against the text as the edit was
    // announced, stack/acp/interaction/edit-baselines.ts. And once its `wc -l notes.txt` printed
    // 0: opencode does not wait for fs/write_text_file's answer, and the bridge's write opened the
    // file with O_TRUNC after opencode's own write; it writes in place now, write-in-place.ts.)
    const verdict = await crossRunVerdict("acp-opencode", "turn-tools", result);
    expect(verdict.diffs).toEqual([]);
    expect(verdict.passed).toBe(true);
    const committed = await readRecording(committedRecording);
    expect(recording.manifest.cliVersion).toBe(committed.manifest.cliVersion);
    expect(recording.manifest.lines).toEqual(committed.manifest.lines);
  }, 180_000);
});
