/**
 * The compiled ACP bridge through the bootstrap, as a runtime runs it (dist/; refresh with
 * `npx tsc -p tsconfig.build.json`): a full turn with record mode on tees all four lanes into the
 * thread's scope (the agent's two lanes via `recordProviderChildIo` right after spawn, spec 10 §4),
 * and the record variable never reaches the agent.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { initializeBridge } from "../../harness/runtime/handshake.js";
import { packageDistPath, spawnBridge } from "../../harness/runtime/spawn-bridge.js";
import { fixtureLaunchSpec } from "../../stack/acp/fixture-agent/conformance.js";
import { REPO_ROOT } from "./fixture-agent-build.js";

const BRIDGE = packageDistPath("stack", "acp", "bridge.js");
const FIXTURE = packageDistPath("stack", "acp", "fixture-agent", "main.js");
const available = existsSync(BRIDGE) && existsSync(FIXTURE) && existsSync(packageDistPath("stack", "bridge-kit", "bootstrap.js"));

function readLane(file: string): Array<{ seq: number; dir: string; line: string }> {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { seq: number; dir: string; line: string });
}

describe.skipIf(!available)("ACP bridge through the bootstrap", () => {
  it("records the runtime and agent lanes of a thread and keeps the record variable from the agent", async () => {
    const recordDir = mkdtempSync(path.join(tmpdir(), "acp-record-"));
    const work = mkdtempSync(path.join(tmpdir(), "acp-ws-"));
    const spec = fixtureLaunchSpec(FIXTURE, {
      prompts: [
        {
          steps: [
            { update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "recorded" } } },
            { echoEnv: ["BB_PROVIDER_BRIDGE_RECORD_DIR", "BB_THREAD_ID", "NODE_ENV"] },
            { end: "end_turn" },
          ],
        },
      ],
    });
    const bridge = spawnBridge({
      modulePath: BRIDGE,
      providerId: "acp-fixture",
      cwd: REPO_ROOT,
      env: { ...process.env, BB_PROVIDER_BRIDGE_RECORD_DIR: recordDir },
    });
    try {
      await initializeBridge(bridge);
      const completed = new Promise<void>((resolve) => {
        bridge.onNotification((n) => {
          const params = n.params as { deltas?: Array<{ kind: string }> } | undefined;
          if (n.method === "thread/delta" && params?.deltas?.some((d) => d.kind === "turn.boundary")) resolve();
        });
      });
      await bridge.request("thread/start", {
        threadId: "thr_rec_1",
        cwd: work,
        options: { permissionMode: "full", envVars: { BB_THREAD_ID: "thr_rec_1" }, providerOptions: { acpLaunchSpec: spec } },
      });
      await bridge.request("turn/start", { threadId: "thr_rec_1", input: [{ type: "text", text: "hi" }], clientRequestId: "creq_rec0000000", options: {} });
      await completed;
    } finally {
      await bridge.close();
    }
    const scopeDir = path.join(recordDir, "acp-fixture", "thr_rec_1");
    expect(readdirSync(scopeDir).sort()).toEqual(["bridge→provider.ndjson", "bridge→runtime.ndjson", "provider→bridge.ndjson", "runtime→bridge.ndjson"]);
    const toAgent = readLane(path.join(scopeDir, "bridge→provider.ndjson")).map((e) => JSON.parse(e.line).method);
    expect(toAgent).toEqual(["initialize", "session/new", "session/prompt"]);
    const fromAgent = readLane(path.join(scopeDir, "provider→bridge.ndjson")).map((e) => JSON.parse(e.line));
    expect(fromAgent.some((m) => m.params?.update?.content?.text === "recorded")).toBe(true);
    // One seq counter across all four lanes: no seq repeats.
    const seqs = readdirSync(scopeDir).flatMap((f) => readLane(path.join(scopeDir, f)).map((e) => e.seq));
    expect(new Set(seqs).size).toBe(seqs.length);
    // The agent saw the runtime's envVars but neither the record variable nor NODE_ENV.
    const echoed = fromAgent.map((m) => m.params?.update?.content?.text).find((t) => typeof t === "string" && t.startsWith("{"));
    expect(JSON.parse(echoed)).toEqual({ BB_PROVIDER_BRIDGE_RECORD_DIR: null, BB_THREAD_ID: "thr_rec_1", NODE_ENV: null });
  });
});
