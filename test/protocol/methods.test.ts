import { readFileSync, readdirSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { classifyJsonRpcMessage, isJsonRpcErrorResponse, jsonRpcIdKey } from "../../stack/protocol/json-rpc.js";
import {
  BRIDGE_NOTIFICATION_METHODS,
  BRIDGE_NOTIFICATION_PARAMS_SCHEMAS,
  BRIDGE_REQUEST_METHODS,
  BRIDGE_REQUEST_PARAMS_SCHEMAS,
  BRIDGE_REQUEST_RESULT_SCHEMAS,
  BRIDGE_TO_RUNTIME_REQUEST_PARAMS_SCHEMAS,
  BRIDGE_TO_RUNTIME_REQUEST_RESULT_SCHEMAS,
  ThreadStopParamsSchema,
  TurnStartParamsSchema,
  isBridgeRequestMethod,
} from "../../stack/protocol/methods.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const cursorRoot = path.resolve(repoRoot, "../shared/recordings/acp-cursor");

function laneMessages(cell: string, lane: string): unknown[] {
  const file = path.join(cursorRoot, cell, `${lane}.ndjson`);
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse((JSON.parse(line) as { line: string }).line) as unknown);
}

describe("method table (spec 20 §1.2, spec 30 §6.1)", () => {
  it("names every runtime method and has a params and result schema for each", () => {
    expect(BRIDGE_REQUEST_METHODS).toMatchObject({
      initialize: "initialize",
      modelList: "model/list",
      threadStart: "thread/start",
      threadResume: "thread/resume",
      threadFork: "thread/fork",
      turnStart: "turn/start",
      turnSteer: "turn/steer",
      threadStop: "thread/stop",
    });
    for (const method of Object.values(BRIDGE_REQUEST_METHODS)) {
      expect(isBridgeRequestMethod(method)).toBe(true);
      expect(BRIDGE_REQUEST_RESULT_SCHEMAS[method]).toBeDefined();
    }
    expect(isBridgeRequestMethod("toString")).toBe(false);
    expect(BRIDGE_NOTIFICATION_METHODS.providerRecovery).toBe("provider/recovery");
  });

  it("thread/stop takes interrupt or release and a nullable activeTurnId", () => {
    expect(ThreadStopParamsSchema.safeParse({ threadId: "t", intent: "release", activeTurnId: null }).success).toBe(true);
    expect(ThreadStopParamsSchema.safeParse({ threadId: "t", intent: "pause", activeTurnId: null }).success).toBe(false);
    expect(ThreadStopParamsSchema.safeParse({ threadId: "", intent: "interrupt" }).success).toBe(false);
  });

  it("lets unknown params keys pass through", () => {
    const parsed = TurnStartParamsSchema.parse({
      threadId: "t",
      input: [{ type: "text", text: "hi", mentions: [] }],
      clientRequestId: "creq_x",
      futureKey: { a: 1 },
      options: { permissionScope: "workspace" },
    });
    expect(parsed.futureKey).toEqual({ a: 1 });
    expect(parsed.options?.permissionScope).toBe("workspace");
    expect(parsed.input[0]?.text).toBe("hi");
  });
});

describe("the real acp-cursor recordings fit the method schemas", () => {
  const cells = existsSync(cursorRoot) ? readdirSync(cursorRoot).sort() : [];

  it("finds the recordings", () => {
    expect(cells.length).toBeGreaterThanOrEqual(8);
  });

  it.each(cells)("%s: every request, result, notification and bridge request parses", (cell) => {
    const runtimeToBridge = laneMessages(cell, "runtime→bridge");
    const bridgeToRuntime = [...laneMessages(cell, "bridge→runtime"), ...laneMessages(cell, "bridge→runtime.current")];
    const runtimeRequests = new Map<string, string>();
    const bridgeRequests = new Map<string, string>();
    let checked = 0;
    for (const value of runtimeToBridge) {
      const classified = classifyJsonRpcMessage(value);
      expect(classified.kind).not.toBe("invalid");
      if (classified.kind === "request") {
        runtimeRequests.set(jsonRpcIdKey(classified.message.id), classified.message.method);
        expect(isBridgeRequestMethod(classified.message.method)).toBe(true);
        if (isBridgeRequestMethod(classified.message.method)) {
          const parsed = BRIDGE_REQUEST_PARAMS_SCHEMAS[classified.message.method].safeParse(classified.message.params);
          expect(parsed.error?.issues ?? [], classified.message.method).toEqual([]);
          checked += 1;
        }
      }
    }
    for (const value of bridgeToRuntime) {
      const classified = classifyJsonRpcMessage(value);
      expect(classified.kind).not.toBe("invalid");
      if (classified.kind === "request") {
        bridgeRequests.set(jsonRpcIdKey(classified.message.id), classified.message.method);
        const schema = BRIDGE_TO_RUNTIME_REQUEST_PARAMS_SCHEMAS[classified.message.method as "interaction/request"];
        expect(schema, classified.message.method).toBeDefined();
        expect(schema.safeParse(classified.message.params).error?.issues ?? []).toEqual([]);
        checked += 1;
      } else if (classified.kind === "notification") {
        const schema = BRIDGE_NOTIFICATION_PARAMS_SCHEMAS[classified.message.method as "thread/delta"];
        expect(schema, classified.message.method).toBeDefined();
        expect(schema.safeParse(classified.message.params).error?.issues ?? []).toEqual([]);
        checked += 1;
      } else if (classified.kind === "response" && !isJsonRpcErrorResponse(classified.message)) {
        const method = runtimeRequests.get(jsonRpcIdKey(classified.message.id));
        expect(method).toBeDefined();
        if (method && isBridgeRequestMethod(method)) {
          const parsed = BRIDGE_REQUEST_RESULT_SCHEMAS[method].safeParse(classified.message.result);
          expect(parsed.error?.issues ?? [], method).toEqual([]);
          checked += 1;
        }
      }
    }
    for (const value of runtimeToBridge) {
      const classified = classifyJsonRpcMessage(value);
      if (classified.kind === "response" && !isJsonRpcErrorResponse(classified.message)) {
        const method = bridgeRequests.get(jsonRpcIdKey(classified.message.id)) as "interaction/request" | undefined;
        expect(method).toBeDefined();
        if (method) {
          expect(BRIDGE_TO_RUNTIME_REQUEST_RESULT_SCHEMAS[method].safeParse(classified.message.result).success).toBe(true);
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(0);
  });
});
