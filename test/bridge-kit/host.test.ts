import { describe, expect, it } from "vitest";
import { defineProviderBridge, type BridgeContext } from "../../stack/bridge-kit/define.js";
import { createBridgeHost } from "../../stack/bridge-kit/host.js";
import { BridgeIoClosedError } from "../../stack/bridge-kit/io.js";
import type { BridgeRecorder } from "../../stack/bridge-kit/recorder.js";

function setup(hooks: { onLine?: (line: string, ctx: BridgeContext, message: unknown) => void | Promise<void> } = {}) {
  const written: string[] = [];
  const logged: string[] = [];
  const seen: Array<{ line: string; message: unknown }> = [];
  const recorded: Array<[string, string]> = [];
  let closed = 0;
  const recorder = {
    recordRuntimeLine: (direction: string, line: string) => recorded.push([direction, line]),
  } as unknown as BridgeRecorder;
  const bridge = defineProviderBridge({
    handleLine(line, ctx, message) {
      seen.push({ line, message });
      return hooks.onLine?.(line, ctx, message);
    },
    onClose() {
      closed += 1;
    },
  });
  const host = createBridgeHost({
    bridge,
    providerId: "p",
    dataDir: "/data",
    tempDir: "/tmp/x",
    env: { A: "1" },
    writeLine: (line) => written.push(line),
    log: (text) => logged.push(text),
    recorder,
  });
  return { host, written, logged, seen, recorded, closedCount: () => closed };
}

describe("createBridgeHost", () => {
  it("gives hooks one frozen context", () => {
    const { host } = setup();
    expect(host.ctx).toMatchObject({ providerId: "p", dataDir: "/data", tempDir: "/tmp/x", env: { A: "1" } });
    expect(Object.isFrozen(host.ctx)).toBe(true);
  });

  it("records and routes: blank and non-JSON lines are dropped, answers to pending requests go to io", async () => {
    const { host, seen, recorded, written } = setup();
    const pending = host.ctx.io.request("interaction/request", { threadId: "t" });
    host.acceptLine("");
    host.acceptLine("not json");
    host.acceptLine('{"jsonrpc":"2.0","id":1,"result":{"decision":"deny"}}');
    host.acceptLine('{"jsonrpc":"2.0","id":1,"result":{"unmatched":true}}');
    host.acceptLine('{"jsonrpc":"2.0","id":9,"method":"initialize","params":{}}');
    await expect(pending).resolves.toEqual({ decision: "deny" });
    expect(seen.map((s) => s.line)).toEqual(['{"jsonrpc":"2.0","id":1,"result":{"unmatched":true}}', '{"jsonrpc":"2.0","id":9,"method":"initialize","params":{}}']);
    expect(seen[1]?.message).toEqual({ jsonrpc: "2.0", id: 9, method: "initialize", params: {} });
    expect(recorded.map(([direction]) => direction)).toEqual(["bridge→runtime", "runtime→bridge", "runtime→bridge", "runtime→bridge", "runtime→bridge"]);
    expect(recorded[0]?.[1]).toBe(written[0]);
  });

  it("logs a throwing or rejecting handleLine and keeps serving", async () => {
    let calls = 0;
    const { host, logged, seen } = setup({
      onLine: () => {
        calls += 1;
        if (calls === 1) throw new Error("sync boom");
        if (calls === 2) return Promise.reject(new Error("async boom"));
        return undefined;
      },
    });
    host.acceptLine("{}");
    host.acceptLine("{}");
    host.acceptLine("{}");
    await Promise.resolve();
    await Promise.resolve();
    expect(seen).toHaveLength(3);
    expect(logged.join("\n")).toContain("sync boom");
    expect(logged.join("\n")).toContain("async boom");
  });

  it("waits on close for a handleLine still in flight, so its reply goes out", async () => {
    let release: () => void = () => undefined;
    const { host, written } = setup({
      onLine: async (_line, ctx) => {
        await new Promise<void>((resolve) => (release = resolve));
        ctx.io.sendResult(1, { ok: true });
      },
    });
    host.acceptLine('{"jsonrpc":"2.0","id":1,"method":"thread/stop","params":{}}');
    const closing = host.close();
    let done = false;
    void closing.then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    release();
    await closing;
    expect(written).toEqual(['{"jsonrpc":"2.0","id":1,"result":{"ok":true}}']);
  });

  it("closes once: pending bridge requests reject, onClose runs once", async () => {
    const { host, closedCount } = setup();
    const pending = host.ctx.io.request("item/tool/call", {});
    const first = host.close();
    const second = host.close();
    expect(second).toBe(first);
    await first;
    await expect(pending).rejects.toBeInstanceOf(BridgeIoClosedError);
    expect(closedCount()).toBe(1);
  });
});
