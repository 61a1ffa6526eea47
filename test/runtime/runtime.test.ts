import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { BridgeClosedError, BridgeRefusedError, BridgeRpcError } from "../../harness/runtime/errors.js";
import { checkInitializeResult, initializeBridge } from "../../harness/runtime/handshake.js";
import { createProviderRegistry, type ProviderDeclarationInput } from "../../harness/runtime/provider-registry.js";
import { packageDistPath, spawnBridge, type BridgeProcess } from "../../harness/runtime/spawn-bridge.js";
import { startBridge } from "../../harness/runtime/start-bridge.js";
import { InputError } from "../../harness/errors.js";
import { ECHO_PROVIDER_DECLARATION } from "../../stack/echo/declaration.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const scratch = mkdtempSync(path.join(tmpdir(), "runtime-test-"));
const running: BridgeProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((proc) => proc.close()));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const dist = (p: string) => JSON.stringify(pathToFileURL(path.join(repoRoot, "dist", p)).href);

/**
 * A test bridge module: `initialize` answers the capabilities in env TEST_CAPABILITIES
 * (JSON; "absent" leaves the key out), `test/ask` asks the runtime `interaction/request`
 * and returns its answer, `test/exit` logs to stderr and exits with code 3. On close it
 * writes "closed" to the file named by env TEST_CLOSE_MARKER, when set.
 */
const moduleFile = path.join(scratch, "configurable-bridge.mjs");
writeFileSync(
  moduleFile,
  [
    `import { defineProviderBridge } from ${dist("stack/bridge-kit/define.js")};`,
    `import { runBridgeRequest } from ${dist("stack/bridge-kit/run-request.js")};`,
    `import { writeFileSync } from "node:fs";`,
    `export const experimental_providerBridge = defineProviderBridge({`,
    `  onClose(ctx) { if (ctx.env.TEST_CLOSE_MARKER) writeFileSync(ctx.env.TEST_CLOSE_MARKER, "closed"); },`,
    `  async handleLine(_line, ctx, message) {`,
    `    await runBridgeRequest(ctx.io, message, {`,
    `      initialize: () => {`,
    `        const caps = ctx.env.TEST_CAPABILITIES;`,
    `        return caps === "absent" ? { protocolVersion: 2 } : { protocolVersion: 2, capabilities: JSON.parse(caps) };`,
    `      },`,
    `      "test/ask": async () => {`,
    `        try { return { answer: await ctx.io.request("interaction/request", { threadId: "t", turnId: null, payload: { kind: "approval" } }) }; }`,
    `        catch (error) { return { rejected: error.code ?? String(error) }; }`,
    `      },`,
    `      "test/exit": () => { ctx.log("giving up now"); process.exit(3); },`,
    `    });`,
    `  },`,
    `});`,
  ].join("\n"),
);

function spawnTestBridge(capabilities: unknown, providerId = "test-bridge"): BridgeProcess {
  const proc = spawnBridge({
    modulePath: moduleFile,
    providerId,
    env: { ...process.env, TEST_CAPABILITIES: capabilities === undefined ? "absent" : JSON.stringify(capabilities) },
  });
  running.push(proc);
  return proc;
}

describe("initializeBridge: the grammar gate at spawn", () => {
  it("accepts the echo bridge through the real bootstrap and negotiates grammar 3", async () => {
    const proc = spawnBridge({ modulePath: packageDistPath("stack", "echo", "bridge.js"), providerId: "echo" });
    running.push(proc);
    const initialized = await initializeBridge(proc);
    expect(initialized.grammarVersion).toBe(3);
    expect(initialized.capabilities.grammarVersions).toEqual([3, 3]);
    const started = (await proc.request("thread/start", { threadId: "thr_rt", cwd: scratch })) as { providerThreadId: string };
    expect(started.providerThreadId).toMatch(/^echo-[0-9a-f]{16}$/);
    expect(await proc.close()).toEqual({ code: 0, signal: null });
  });

  it("refuses a bridge reporting [2,2], naming the bridge and the range", async () => {
    const proc = spawnTestBridge({ grammarVersions: [2, 2] }, "old-grammar");
    const refusal = await initializeBridge(proc).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(BridgeRefusedError);
    expect((refusal as Error).message).toMatch(/^bridge old-grammar \(configurable-bridge\.mjs, pid \d+\) refused: it reported grammarVersions \[2,2\];/);
  });

  it("startBridge refuses a [2,2] bridge at spawn and does not leave it running", async () => {
    const marker = path.join(scratch, "refused-bridge-closed");
    const refusal = await startBridge({
      modulePath: moduleFile,
      providerId: "old-grammar",
      env: { ...process.env, TEST_CAPABILITIES: JSON.stringify({ grammarVersions: [2, 2] }), TEST_CLOSE_MARKER: marker },
    }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(BridgeRefusedError);
    expect((refusal as Error).message).toContain("[2,2]");
    // startBridge resolved only after the refused bridge ran its onClose and exited.
    expect(readFileSync(marker, "utf8")).toBe("closed");
    const started = await startBridge({ modulePath: packageDistPath("stack", "echo", "bridge.js"), providerId: "echo" });
    running.push(started.process);
    expect(started.handshake.grammarVersion).toBe(3);
  });

  it("refuses a bridge that omits grammarVersions (it reads [2,2]) and says so", async () => {
    const proc = spawnTestBridge(undefined, "no-field");
    await expect(initializeBridge(proc)).rejects.toThrow(/no-field .*grammarVersions \[2,2\] \(no grammarVersions field, which reads \[2,2\]\)/);
  });

  it("accepts ranges that include 3: [2,3] and [3,5]", async () => {
    expect((await initializeBridge(spawnTestBridge({ grammarVersions: [2, 3] }))).grammarVersion).toBe(3);
    expect((await initializeBridge(spawnTestBridge({ grammarVersions: [3, 5] }))).grammarVersion).toBe(3);
  });

  it("refuses [4,4] and a result that does not parse", () => {
    expect(() => checkInitializeResult("b", { protocolVersion: 2, capabilities: { grammarVersions: [4, 4] } })).toThrow(/\[4,4\]/);
    expect(() => checkInitializeResult("b", { protocolVersion: 2, capabilities: { grammarVersions: [3, 2] } })).toThrow(/does not parse: capabilities\.grammarVersions/);
    expect(() => checkInitializeResult("b", { protocolVersion: 1, capabilities: { grammarVersions: [3, 3] } })).toThrow(/protocol version 1/);
  });
});

describe("provider registry: a handshake may only narrow the declaration", () => {
  const declaration: ProviderDeclarationInput = {
    id: "test-bridge",
    displayName: "Test bridge",
    family: "test",
    glyph: "Toolbox",
    capabilities: { sessionRestore: true, fork: "tip", steerMode: "queue", grammarVersions: [2, 3] },
  };

  it("registers, lists, refuses duplicates and malformed declarations, and disposes", () => {
    const registry = createProviderRegistry();
    const handle = registry.registerProvider(declaration);
    expect(registry.list().map((d) => d.id)).toEqual(["test-bridge"]);
    expect(() => registry.registerProvider(declaration)).toThrow(/already registered/);
    expect(() => registry.registerProvider({ ...declaration, id: "other", glyph: "" })).toThrow(InputError);
    expect(() => registry.registerProvider({ ...declaration, id: "other", colour: "red" } as never)).toThrow(/field `\(declaration\)`|colour/);
    handle.dispose();
    handle.dispose();
    expect(registry.get("test-bridge")).toBeUndefined();
    // Two registries are independent: no module state.
    const other = createProviderRegistry();
    other.registerProvider(declaration);
    expect(registry.list()).toEqual([]);
  });

  it("the echo's own declaration admits the echo, and a stricter one refuses it", async () => {
    const registry = createProviderRegistry();
    const handle = registry.registerProvider(ECHO_PROVIDER_DECLARATION);
    const echo = () => {
      const proc = spawnBridge({ modulePath: packageDistPath("stack", "echo", "bridge.js"), providerId: "echo" });
      running.push(proc);
      return proc;
    };
    expect((await initializeBridge(echo(), { registry })).declaration?.displayName).toBe("Echo");
    handle.dispose();
    registry.registerProvider({ ...ECHO_PROVIDER_DECLARATION, capabilities: { ...ECHO_PROVIDER_DECLARATION.capabilities, sessionRestore: false } });
    await expect(initializeBridge(echo(), { registry })).rejects.toThrow(/provider "echo": sessionRestore true \(declared false\)/);
  });

  it("accepts a narrowing handshake at spawn and returns the handshake's (narrower) facts", async () => {
    const registry = createProviderRegistry();
    registry.registerProvider(declaration);
    const initialized = await initializeBridge(spawnTestBridge({ grammarVersions: [3, 3], sessionRestore: false, fork: "none" }), { registry });
    expect(initialized.declaration?.id).toBe("test-bridge");
    expect(initialized.capabilities.sessionRestore).toBe(false);
    expect(initialized.capabilities.fork).toBe("none");
  });

  it("refuses a widening handshake at spawn the same way, naming each widened fact", async () => {
    const registry = createProviderRegistry();
    registry.registerProvider({ ...declaration, capabilities: { fork: "none" } });
    const proc = spawnTestBridge({ grammarVersions: [3, 3], sessionRestore: true, fork: "tip" });
    const refusal = await initializeBridge(proc, { registry }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(BridgeRefusedError);
    expect((refusal as Error).message).toContain('widens the declaration of provider "test-bridge": sessionRestore true (declared false), fork "tip" (declared "none")');
  });

  it("treats grammar ranges, fork order and announced enums as facts to narrow", () => {
    const registry = createProviderRegistry();
    registry.registerProvider(declaration);
    const decl = registry.get("test-bridge")!;
    const check = (capabilities: unknown) => () => checkInitializeResult("b", { protocolVersion: 2, capabilities }, decl);
    expect(check({ grammarVersions: [3, 3], fork: "checkpoint" })).toThrow(/fork "checkpoint" \(declared "tip"\)/);
    expect(check({ grammarVersions: [3, 4] })).toThrow(/grammarVersions \[3,4\] \(declared \[2,3\]\)/);
    expect(check({ grammarVersions: [3, 3], steerMode: "inject" })).toThrow(/steerMode "inject" \(declared "queue"\)/);
    expect(check({ grammarVersions: [3, 3], fork: "someday" })).toThrow(/fork "someday"/);
    expect(check({ grammarVersions: [3, 3], fork: "tip", sessionRestore: true, approvalEnforcedBy: "provider" })).not.toThrow();
  });
});

describe("the runtime's JSON-RPC client", () => {
  it("answers bridge→runtime requests with its handler, or -32601 without one, and taps every line", async () => {
    const proc = spawnTestBridge({ grammarVersions: [3, 3] });
    const tapped: string[] = [];
    proc.onLine((line, direction) => tapped.push(`${direction} ${(JSON.parse(line) as { method?: string }).method ?? "answer"}`));
    expect(await proc.request("test/ask")).toEqual({ rejected: -32601 });
    proc.onRequest((method, params) => ({ decision: "allow_once", echoed: method, kind: (params as { payload: { kind: string } }).payload.kind }));
    expect(await proc.request("test/ask")).toEqual({ answer: { decision: "allow_once", echoed: "interaction/request", kind: "approval" } });
    proc.onRequest(() => {
      throw new Error("no approvals today");
    });
    expect(await proc.request("test/ask")).toEqual({ rejected: -32000 });
    expect(tapped.slice(0, 4)).toEqual(["runtime→bridge test/ask", "bridge→runtime interaction/request", "runtime→bridge answer", "bridge→runtime answer"]);
    await expect(proc.request("no/such")).rejects.toBeInstanceOf(BridgeRpcError);
  });

  it("rejects a pending request with the exit code and stderr tail when the bridge dies", async () => {
    const proc = spawnTestBridge({ grammarVersions: [3, 3] });
    const failure = await proc.request("test/exit").catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(BridgeClosedError);
    expect((failure as Error).message).toMatch(/exited with code 3; stderr: .*giving up now/);
    expect(await proc.exited).toEqual({ code: 3, signal: null });
    await expect(proc.request("initialize", {})).rejects.toBeInstanceOf(BridgeClosedError);
  });

  it("kill() ends a bridge at once", async () => {
    const proc = spawnTestBridge({ grammarVersions: [3, 3] });
    await initializeBridge(proc);
    proc.kill();
    expect(await proc.exited).toEqual({ code: null, signal: "SIGKILL" });
  });
});
