/**
 * The bootstrap with a replay's relay directory named (BB_PROVIDER_BRIDGE_RELAY_DIR): a bridge
 * module that imports `spawn` by name (ESM) has its spawn of the relay script served in the
 * bridge process, with no perl process; any other agent it starts is a real process; no child
 * and not the bridge itself keeps the variable. Waits are on lines and events only.
 */
import fs from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { findRelayTools, relayScript } from "../../harness/replay/stand-ins/relay-channel.js";
import { FIRST_IN_PROCESS_PID, RELAY_DIR_ENV_VAR, relayPaths } from "../../stack/bridge-kit/bootstrap-relay-wire.js";
import { driveBridge, ensureCompiledBootstrap } from "./bootstrap-driver.js";

let tmp: string;
beforeAll(() => ensureCompiledBootstrap(), 120_000);
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "bootstrap-relay-"));
});
afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("bootstrap serving the replay relay in the bridge process", () => {
  it("serves the bridge's spawn of the relay script in-process, starts other agents for real, and hides the variable", async () => {
    const { script, socket } = relayPaths(tmp);
    fs.writeFileSync(script, relayScript(socket));
    // The harness's side: each relay's first line, then answer every line with `back:<line>`.
    const firstLines: string[] = [];
    const server = createServer((connection) => {
      let first = true;
      createInterface({ input: connection }).on("line", (line) => {
        if (first) firstLines.push(line);
        else connection.write(`back:${line}\n`);
        first = false;
      });
      connection.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      const bridge = driveBridge({ providerId: "probe", dataDir: path.join(tmp, "data"), env: { ...process.env, [RELAY_DIR_ENV_VAR]: tmp } });
      await bridge.request(1, "initialize", { protocolVersion: 2, client: { name: "t", version: "1" }, grammarVersions: [3, 3] });
      const perl = findRelayTools()!.perl;
      const served = await bridge.request(2, "test/agentRoundTrip", { command: perl, args: [script, "--flag"], line: "hello" });
      expect(served.result).toEqual({ pid: FIRST_IN_PROCESS_PID, read: "back:hello\n", code: 0, signal: null, relayVar: null });
      expect(firstLines).toEqual([`${FIRST_IN_PROCESS_PID} in-process`]);

      // Another command is Node's: a real process, which sees no BB_ variable.
      const started = await bridge.request(3, "thread/start", { threadId: "t1", cwd: tmp, options: {} });
      expect(started.result).toMatchObject({ childReport: { ready: true, recordVar: null, bbKeys: [] } });
      const real = await bridge.request(4, "test/agentRoundTrip", { command: process.execPath, args: ["-e", "process.stdin.pipe(process.stdout)"], line: "x" });
      expect(real.result).toMatchObject({ read: "x\n", code: 0, signal: null });
      expect((real.result as { pid: number }).pid).toBeLessThan(FIRST_IN_PROCESS_PID);

      bridge.child.stdin.end();
      expect(await bridge.exited).toEqual({ code: 0, signal: null });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
