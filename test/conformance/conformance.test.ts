import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { captureBridgeJsonRpcOutput } from "../../harness/conformance/capture.js";
import { conformanceClientRequestId } from "../../harness/conformance/context.js";
import { CONFORMANCE_RULE_IDS, type ConformanceReport } from "../../harness/conformance/rules.js";
import { runBridgeConformance } from "../../harness/conformance/run.js";
import { echoConformanceSession } from "../../harness/conformance/session.js";
import { inProcessTransport } from "../../harness/conformance/transport.js";
import { createEchoBridge } from "../../stack/echo/bridge.js";
import { ClientRequestIdSchema } from "../../stack/protocol/thread-delta.js";
import { repoRoot, runCli } from "../helpers/run-cli.js";
import { createBrokenBridge, DEFECTS, type Defect } from "./broken-bridge.js";

const scratch = mkdtempSync(path.join(tmpdir(), "conformance-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A drop is only detectable by a timeout; keep it short so the test stays quick. */
const DROP_TIMEOUT_MS = 1_500;

function statuses(report: ConformanceReport) {
  const by = (status: string) =>
    report.results
      .filter((r) => r.status === status)
      .map((r) => r.id)
      .sort();
  return { fail: by("fail"), skipped: by("skipped"), pass: by("pass") };
}

/**
 * Writes `<scratch>/<name>`: a bridge module that imports the compiled bridge-kit (define,
 * run-request) and echo (request handlers, sessions) and then holds `body`. Returns its path.
 */
function writeEchoHandlersModule(name: string, body: string[]): string {
  const dist = (p: string) => pathToFileURL(path.join(repoRoot, "dist", p)).href;
  const file = path.join(scratch, name);
  writeFileSync(
    file,
    [
      `import { defineProviderBridge } from ${JSON.stringify(dist("stack/bridge-kit/define.js"))};`,
      `import { runBridgeRequest } from ${JSON.stringify(dist("stack/bridge-kit/run-request.js"))};`,
      `import { echoRequestHandlers } from ${JSON.stringify(dist("stack/echo/bridge.js"))};`,
      `import { createEchoSessions } from ${JSON.stringify(dist("stack/echo/sessions.js"))};`,
      ...body,
    ].join("\n"),
  );
  return file;
}

describe("parity conform --bridge echo (child process through the bootstrap)", () => {
  it("passes all 14 rules, one line per rule, exit 0", async () => {
    const { code, out, err } = await runCli(["conform", "--bridge", "echo"]);
    expect(err).toBe("");
    expect(code, out).toBe(0);
    const lines = out.trimEnd().split("\n");
    expect(lines).toHaveLength(15);
    expect(lines.slice(0, 14).map((l) => l.split(/\s+/)[1])).toEqual(CONFORMANCE_RULE_IDS);
    expect(lines.slice(0, 14).every((l) => l.startsWith("pass  "))).toBe(true);
    expect(lines[14]).toMatch(/conformant — 14 passed, 0 failed, 0 skipped$/);
  });

  it("--json prints the report", async () => {
    const { code, out, err } = await runCli(["conform", "--bridge", "echo", "--json"]);
    expect(code, `${out}${err}`).toBe(0);
    const report = JSON.parse(out) as ConformanceReport;
    expect(report.passed).toBe(true);
    expect(report.results.map((r) => r.id)).toEqual(CONFORMANCE_RULE_IDS);
  });

  it("a module path of a bridge reporting grammar [2,2] fails handshake/initialize only, exit 1", async () => {
    const file = writeEchoHandlersModule("grammar-v2-bridge.mjs", [
      `import { randomBytes } from "node:crypto";`,
      `const states = new WeakMap();`,
      `export const experimental_providerBridge = defineProviderBridge({`,
      `  async handleLine(_line, ctx, message) {`,
      `    let handlers = states.get(ctx);`,
      `    if (!handlers) {`,
      `      handlers = { ...echoRequestHandlers(ctx, createEchoSessions(ctx.io, (n) => randomBytes(n))),`,
      `        initialize: () => ({ protocolVersion: 2, capabilities: { grammarVersions: [2, 2] } }) };`,
      `      states.set(ctx, handlers);`,
      `    }`,
      `    await runBridgeRequest(ctx.io, message, handlers);`,
      `  },`,
      `});`,
    ]);
    const { code, out } = await runCli(["conform", "--bridge", file, "--session", writeSession()]);
    expect(code).toBe(1);
    const failing = out.split("\n").filter((l) => l.startsWith("FAIL"));
    expect(failing).toHaveLength(1);
    expect(failing[0]).toMatch(/^FAIL {2}handshake\/initialize .*grammarVersions \[2,2\]/);
  });

  it("a module minting providerThreadId from a process counter fails only the not-counter rule across two real processes", async () => {
    const file = writeEchoHandlersModule("counter-bridge.mjs", [
      `let counter = 0; // the defect: process state that restarts with every process`,
      `const counterBytes = (n) => { counter += 1; const out = new Uint8Array(n); out[n - 1] = counter; return out; };`,
      `let handlers;`,
      `export const experimental_providerBridge = defineProviderBridge({`,
      `  async handleLine(_line, ctx, message) {`,
      `    handlers ??= echoRequestHandlers(ctx, createEchoSessions(ctx.io, counterBytes));`,
      `    await runBridgeRequest(ctx.io, message, handlers);`,
      `  },`,
      `});`,
    ]);
    const { code, out } = await runCli(["conform", "--bridge", file, "--session", writeSession()]);
    expect(code).toBe(1);
    const failing = out.split("\n").filter((l) => l.startsWith("FAIL"));
    expect(failing).toEqual([expect.stringMatching(/^FAIL {2}session\/provider-thread-id-not-counter .*"echo-0000000000000001"/)]);
  });

  it("refuses an unknown bridge name and a bad session file with exit 2", async () => {
    expect((await runCli(["conform", "--bridge", "no-such-bridge"])).code).toBe(2);
    const bad = path.join(scratch, "bad-session.json");
    writeFileSync(bad, JSON.stringify({ cwd: "", input: [] }));
    const result = await runCli(["conform", "--bridge", "echo", "--session", bad]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/bad-session\.json: invalid conformance session: field `cwd`/);
  });
});

describe("a bridge that dies mid-run", () => {
  it("fails the rules that need it at once, without waiting out the timeout", async () => {
    const dist = (p: string) => pathToFileURL(path.join(repoRoot, "dist", p)).href;
    const file = path.join(scratch, "dies-on-turn.mjs");
    writeFileSync(
      file,
      [
        `import { experimental_providerBridge as echo } from ${JSON.stringify(dist("stack/echo/bridge.js"))};`,
        `import { defineProviderBridge } from ${JSON.stringify(dist("stack/bridge-kit/define.js"))};`,
        `export const experimental_providerBridge = defineProviderBridge({`,
        `  handleLine(line, ctx, message) {`,
        `    if (message.method === "turn/start") process.exit(7);`,
        `    return echo.handleLine(line, ctx, message);`,
        `  },`,
        `});`,
      ].join("\n"),
    );
    // The timeout exceeds the test's own limit: only an event-driven run can finish in time.
    const { code, out } = await runCli(["conform", "--bridge", file, "--timeout-ms", "60000", "--session", writeSession()]);
    expect(code).toBe(1);
    const status = Object.fromEntries(
      out
        .trimEnd()
        .split("\n")
        .slice(0, -1)
        .map((line) => [line.split(/\s+/)[1], line.split(/\s+/)[0]]),
    );
    expect(status["session/start-identity"]).toBe("pass");
    expect(status["turn/lifecycle"]).toBe("FAIL");
    expect(status["stop/release-not-interrupted"]).toBe("FAIL");
    expect(status["turn/settles-without-activity"]).toBe("FAIL");
    expect(status["session/provider-thread-id-not-counter"]).toBe("pass");
  });
});

function writeSession(): string {
  const file = path.join(scratch, "echo-session.json");
  writeFileSync(file, JSON.stringify(echoConformanceSession(scratch)));
  return file;
}

describe("runBridgeConformance on deliberately broken bridges (in-process)", () => {
  const expected: Record<Defect, { fail: string[]; skipped: string[] }> = {
    dropsUnknownMethods: { fail: ["rpc/unknown-method"], skipped: ["rpc/non-json-ignored", "rpc/response-not-request"] },
    answersStopBeforeSettling: { fail: ["stop/interrupt-settles-before-answer"], skipped: [] },
    counterProviderThreadId: { fail: ["session/provider-thread-id-not-counter"], skipped: [] },
    grammarV2: { fail: ["handshake/initialize"], skipped: [] },
    invalidDelta: { fail: ["events/schema-valid"], skipped: [] },
  };

  async function check(defects: Defect[], assembled: Array<{ method: string; params: { threadId: string; event: unknown } }> = []) {
    const report = await runBridgeConformance({
      transport: inProcessTransport(createBrokenBridge(new Set(defects)), { providerId: "broken" }),
      session: echoConformanceSession(scratch),
      timeoutMs: DROP_TIMEOUT_MS,
      onAssembledEvent: (notification) => assembled.push(notification),
    });
    return { report, ...statuses(report) };
  }

  it("the unbroken bridge passes all 14, and every assembled event is re-emitted as conformance/assembledEvent", async () => {
    const assembled: Array<{ method: string; params: { threadId: string; event: unknown } }> = [];
    const { report, fail, skipped } = await check([], assembled);
    expect({ fail, skipped }).toEqual({ fail: [], skipped: [] });
    expect(report.results).toHaveLength(14);
    expect(report.passed).toBe(true);
    expect(new Set(assembled.map((n) => `${n.method} ${n.params.threadId}`))).toEqual(new Set(["conformance/assembledEvent thr_conformance_1"]));
    const completions = assembled.map((n) => n.params.event as { type: string; status?: string }).filter((e) => e.type === "turn/completed");
    // lifecycle, resumed turn, zero-work: completed; the held turn: interrupted by the stop.
    expect(completions.map((e) => e.status)).toEqual(["completed", "completed", "completed", "interrupted"]);
    expect(report.results.find((r) => r.id === "events/schema-valid")?.detail).toBe(`${assembled.length} events`);
  });

  for (const defect of DEFECTS) {
    it(`${defect} fails exactly ${expected[defect].fail.join(", ")}`, async () => {
      const { report, fail, skipped, pass } = await check([defect]);
      expect({ fail, skipped }).toEqual(expected[defect]);
      expect(pass).toHaveLength(14 - fail.length - skipped.length);
      expect(report.passed).toBe(false);
    });
  }

  it("all defects at once fail exactly the union of their rules", async () => {
    const { fail, skipped } = await check([...DEFECTS]);
    expect(fail).toEqual(DEFECTS.flatMap((d) => expected[d].fail).sort());
    expect(skipped).toEqual(DEFECTS.flatMap((d) => expected[d].skipped).sort());
  });

  it("details say what broke", async () => {
    const { report } = await check(["answersStopBeforeSettling", "counterProviderThreadId"]);
    const detail = (id: string) => report.results.find((r) => r.id === id)?.detail ?? "";
    expect(detail("stop/interrupt-settles-before-answer")).toMatch(/answered on line \d+ before turn \S+ settled on line \d+/);
    expect(detail("session/provider-thread-id-not-counter")).toContain('both handed out providerThreadId "echo-0000000000000001"');
  });
});

describe("conformance helpers", () => {
  it("clientRequestIds are valid creq ids, distinct, left-padded with 2", () => {
    const ids = [1, 2, 31, 32, 1_000_000].map(conformanceClientRequestId);
    for (const id of ids) expect(ClientRequestIdSchema.safeParse(id).success).toBe(true);
    expect(ids[0]).toBe("creq_2222222223");
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("captureBridgeJsonRpcOutput paces by answers and returns everything the bridge wrote", async () => {
    const thread = { threadId: "thr_capture", cwd: scratch };
    const { lines, messages } = await captureBridgeJsonRpcOutput({
      transport: inProcessTransport(createEchoBridge({ entropy: (n) => new Uint8Array(n).fill(7) }), { providerId: "echo" }),
      input: [
        "not json",
        { jsonrpc: "2.0", id: "a", method: "thread/start", params: thread },
        { jsonrpc: "2.0", id: "b", method: "turn/start", params: { ...thread, input: [{ type: "text", text: "hi there" }], clientRequestId: "creq_2222222223" } },
      ],
    });
    expect(lines).toHaveLength(messages.length);
    const shape = messages.map((m) => {
      const msg = m as { id?: string; method?: string; params?: { deltas?: Array<{ kind: string }> } };
      return msg.method === "thread/delta" ? msg.params!.deltas!.map((d) => d.kind).join("+") : (msg.method ?? `answer ${msg.id}`);
    });
    expect(shape).toEqual(["thread/identity", "session.reset", "answer a", "input.accepted", "turn.open", "answer b", "item.textDelta", "item.textDelta", "item.textClose", "turn.boundary"]);
    expect(messages[0]).toMatchObject({ params: { providerThreadId: "echo-0707070707070707" } });
  });
});
