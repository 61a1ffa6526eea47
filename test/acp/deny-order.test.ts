/**
 * omp asks for a call's permission (`session/request_permission`, seq 20 of the committed
 * acp-omp approval-deny recording) before it reports the call (`tool_call`, seq 21) on the same
 * pipe, while the runtime's deny comes on another pipe. Which of the two reaches the bridge first
 * is the clock's choice; the thread lane must not be. This replays the committed recording and a
 * copy of it in which the runtime's deny comes before omp's `tool_call` (the other order a live
 * run can take), and asks both for the same thread lane.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { replayRecording, type ReplayResult } from "../../harness/replay/replay-recording.js";
import { normalizeThreadLane } from "../../harness/lanes/normalize.js";
import { grammarDropKeys } from "../../harness/compare/parity.js";
import { selectAcpDialect } from "../../stack/acp/dialects/index.js";
import { createAcpTranslator } from "../../stack/acp/translate/index.js";
import { REPO_ROOT } from "./fixture-agent-build.js";
import { runCli } from "../helpers/run-cli.js";

const CELL = path.join(REPO_ROOT, "recordings/acp-omp/approval-deny");
const LANES = ["provider→bridge.ndjson", "bridge→provider.ndjson", "runtime→bridge.ndjson", "bridge→runtime.ndjson"];

/**
 * The committed order is: 20 permission request, 21 tool_call, 22 interaction/request,
 * 23 delta, 24 deny, 25 answer to omp, 26 tool_call_update. The doctored order puts the deny
 * (and the bridge's answer to omp) before the tool_call: 20, 21 interaction/request, 22 deny,
 * 23 delta, 24 answer to omp, 25 tool_call, 26 tool_call_update.
 */
const DENY_FIRST: Readonly<Record<number, number>> = { 21: 25, 22: 21, 24: 22, 25: 24 };

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A temp copy of the cell with the deny-first order (the lines themselves are unchanged). */
function denyFirstCopy(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "parity-deny-order-"));
  dirs.push(dir);
  copyFileSync(path.join(CELL, "manifest.json"), path.join(dir, "manifest.json"));
  for (const lane of LANES) {
    const lines = readFileSync(path.join(CELL, lane), "utf8")
      .split("\n")
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as { seq: number });
    for (const entry of lines) entry.seq = DENY_FIRST[entry.seq] ?? entry.seq;
    lines.sort((a, b) => a.seq - b.seq);
    writeFileSync(path.join(dir, lane), lines.map((entry) => JSON.stringify(entry) + "\n").join(""));
  }
  return dir;
}

/** The thread lane of a replay of `dir` through the built bridge (`npm test` builds it first). */
async function threadLane(dir: string): Promise<unknown[]> {
  const result = await replayRecording(dir);
  return result.lane.events as unknown[];
}

/** The committed oracle of the cell: normalized events; no `unhandled` or `grammarDrops` (both none). */
const ORACLE = JSON.parse(readFileSync(path.join(REPO_ROOT, "lanes/acp-omp/approval-deny.json"), "utf8")) as unknown[];

/** A replay as `parity check` compares it: the normalized thread lane, its unhandled count and grammar drops. */
const leg = (result: ReplayResult) => ({ events: normalizeThreadLane(result.lane.events), unhandled: result.lane.unhandled, grammarDrops: grammarDropKeys(result.lane.grammarDrops) });
const ORACLE_LEG = { events: ORACLE, unhandled: 0, grammarDrops: [] };

describe("acp-omp approval-deny: the thread lane does not depend on whether omp's tool_call or the runtime's deny came first", () => {
  it("the deny-first copy gives the committed order's thread lane: the call is started, then settled denied, and nothing of it is unhandled", async () => {
    const committed = await threadLane(CELL);
    const denyFirst = await threadLane(denyFirstCopy());
    const call = (lane: unknown[]): string[] =>
      (lane as Array<{ type: string; item?: { type: string; status?: string; approvalStatus?: string | null } }>)
        .filter((event) => event.item?.type === "commandExecution" || event.type === "provider/unhandled")
        .map((event) => `${event.type}${event.item ? ` ${event.item.status}/${event.item.approvalStatus}` : ""}`);
    expect(call(committed)).toEqual(["item/started pending/null", "item/completed failed/denied"]);
    expect(denyFirst).toEqual(committed);
  });

  it("both orders give the committed oracle, with no unhandled and no grammar drop; the committed recording replays without a divergence", async () => {
    const committed = await replayRecording(CELL);
    expect(committed.divergences).toEqual([]);
    expect(leg(committed)).toEqual(ORACLE_LEG);
    // The copy's bridge lines are still the committed order's (only the inputs moved), so its replay diverges on the wire; its lane is what counts here.
    expect(leg(await replayRecording(denyFirstCopy()))).toEqual(ORACLE_LEG);
  });
});

/**
 * Two fresh live records of the cell made with the bridge that acts on the runtime's answer only
 * after the agent lines read before it (stack/acp/interaction/runtime-interaction.ts): `parity
 * record --provider acp-omp --cell approval-deny --repeat 5` on 2026-12-07 (omp 18.2.3, offline in a
 * netns), kept as recorded. `tool-call-read-first` is the shape that failed before that fix (run
 * 1 of a batch beside two busy loops, load ~10): omp's tool_call read (seq 22) before the runtime's
 * deny (seq 23), the call opened from the tool_call (24). `deny-read-first` (run 4 of another
 * batch): the deny read (22) and acted on (23) before omp's tool_call (25), whose two reports are
 * raw updates shown only with no turn open. Both pass `parity check` against the committed oracle.
 */
const FRESH = path.join(REPO_ROOT, "test/fixtures/omp-deny-order");

/** Seqs of omp's tool_call, the runtime's deny and the bridge's item.open in a recording. */
function orderOf(dir: string): { toolCall: number; deny: number; open: number } {
  const entries = (lane: string) =>
    readFileSync(path.join(dir, lane), "utf8")
      .split("\n")
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as { seq: number; line: string });
  const toolCall = entries("provider→bridge.ndjson").find((entry) => entry.line.includes('"sessionUpdate":"tool_call"'))!.seq;
  const deny = entries("runtime→bridge.ndjson").find((entry) => entry.line.includes('"decision":"deny"'))!.seq;
  const open = entries("bridge→runtime.ndjson").find((entry) => entry.line.includes('"kind":"item.open"'))!.seq;
  return { toolCall, deny, open };
}

describe("fresh acp-omp approval-deny records in either order (test/fixtures/omp-deny-order)", () => {
  it("the records are the two orders they are named for", () => {
    expect(orderOf(path.join(FRESH, "tool-call-read-first/acp-omp/approval-deny"))).toEqual({ toolCall: 22, deny: 23, open: 24 });
    expect(orderOf(path.join(FRESH, "deny-read-first/acp-omp/approval-deny"))).toEqual({ toolCall: 25, deny: 22, open: 23 });
  });

  for (const order of ["tool-call-read-first", "deny-read-first"]) {
    it(`${order}: replays without a divergence and gives the committed oracle, no unhandled, no grammar drop`, async () => {
      const result = await replayRecording(path.join(FRESH, order, "acp-omp/approval-deny"));
      expect(result.divergences).toEqual([]);
      expect(result.expectationsMet).toBe(result.expectationsTotal);
      expect(leg(result)).toEqual(ORACLE_LEG);
    });

    it(`${order}: parity check against the committed lanes passes`, async () => {
      const run = await runCli(["check", "--recordings", path.join(FRESH, order), "--lanes", path.join(REPO_ROOT, "lanes"), "--provider", "acp-omp", "--reporter", "json"]);
      expect((JSON.parse(run.out) as { cells: Array<{ status: string }> }).cells.map((cell) => cell.status)).toEqual(["pass"]);
      expect(run.code).toBe(0);
    });
  }
});

/** The provider lines of the committed cell by seq (parsed JSON-RPC messages). */
function providerLine(seq: number): Record<string, any> {
  const line = readFileSync(path.join(CELL, "provider→bridge.ndjson"), "utf8")
    .split("\n")
    .filter((entry) => entry.length > 0)
    .map((entry) => JSON.parse(entry) as { seq: number; line: string })
    .find((entry) => entry.seq === seq);
  if (line === undefined) throw new Error(`no provider line ${seq}`);
  return JSON.parse(line.line) as Record<string, any>;
}

describe("the translator on omp's deny-first order (committed lines 20, 21, 26 of acp-omp approval-deny)", () => {
  const request = providerLine(20).params.toolCall;
  const toolCall = providerLine(21).params.update;
  const failed = providerLine(26).params.update;
  const deniedFirst = () => {
    const translator = createAcpTranslator({ threadId: "thr_approval_deny", dialect: selectAcpDialect({ explicit: "omp", command: "omp" }), now: () => 0 });
    translator.notePermissionToolCall(request);
    return { translator, denial: translator.permissionDenied(request.toolCallId) as Array<Record<string, any>> };
  };

  it("the denial of a call only the request named opens it from the request, then settles it denied", () => {
    const { denial } = deniedFirst();
    expect(denial.map((delta) => delta.kind)).toEqual(["item.textClose", "item.textClose", "item.open", "item.close"]);
    expect(denial[2]!.item).toEqual(denial[3]!.item);
    expect(denial[3]).toMatchObject({ status: "failed", approvalStatus: "denied", item: { type: "command", command: "touch denied.txt" } });
  });

  it("omp's later tool_call and failed tool_call_update say nothing more: each is its raw update, shown only with no turn open", () => {
    const { translator } = deniedFirst();
    for (const update of [toolCall, failed]) {
      expect(translator.update(update)).toMatchObject([{ kind: "unhandled", rawType: `acp/update:${update.sessionUpdate}`, vouchedTurn: false, onlyIfNoTurn: true }]);
    }
  });

  it("a later tool_call that says more (another command) stays a vouched unhandled", () => {
    const { translator } = deniedFirst();
    const other = { ...toolCall, rawInput: { command: "touch other.txt" }, title: "$ touch other.txt" };
    const [delta] = translator.update(other) as Array<Record<string, any>>;
    expect(delta).toMatchObject({ kind: "unhandled", vouchedTurn: true });
    expect(delta!.onlyIfNoTurn).toBeUndefined();
  });
});
