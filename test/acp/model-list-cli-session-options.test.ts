/**
 * `model/list` CLI path and declared session options (spec 30 §6.4): with no fresh cached read the
 * bridge opens a throwaway session of its own beside the list command and attaches the agent's
 * options to every listed model. The options are an addition, the list is the answer: a refused,
 * stuck or non-ACP options agent is logged and the models come back without `sessionOptions`.
 */
import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { createFakeScheduler } from "../helpers/fake-scheduler.js";
import type { FixtureScriptInput } from "../../stack/acp/fixture-agent/script.js";
import { agentReceived, fixtureLaunchSpec, startInProcessBridge, type InProcessBridge } from "./bridge-harness.js";

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

/** The fixture agent as the ACP agent, and the same script run with `--list-models` as its list command. */
function cliFixtureSpec(dir: string, script: FixtureScriptInput, name = "agent"): { spec: Record<string, unknown>; log: string } {
  const { spec, log } = fixtureLaunchSpec(dir, script, name);
  return { spec: { ...spec, modelCli: { listArgs: [...(spec.args as string[]), "--list-models"], primaryModels: [] } }, log };
}

const list = (b: InProcessBridge, spec: Record<string, unknown>) => b.request("model/list", { providerOptions: { acpLaunchSpec: spec }, cwd: b.dir });

const declared: NonNullable<FixtureScriptInput["sessionResult"]> = {
  configOptions: [
    {
      id: "depth",
      name: "Depth",
      type: "select",
      currentValue: "shallow",
      options: [
        { value: "shallow", name: "Shallow" },
        { value: "deep", name: "Deep" },
      ],
    },
  ],
};
const declaredOptions = [
  {
    id: "depth",
    name: "Depth",
    type: "select",
    currentValue: "shallow",
    options: [
      { value: "shallow", name: "Shallow" },
      { value: "deep", name: "Deep" },
    ],
  },
];
const lines = ["alpha-1 - Alpha One", "beta-2 - Beta Two"];

describe("model/list CLI path: its own throwaway session for the declared options", () => {
  it("opens one when nothing is cached, attaches the options to every model, and caches the read", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = cliFixtureSpec(bridge.dir, { sessionResult: declared, modelList: { stdout: lines } });
    const first = await list(bridge, spec);
    expect(first.result.models.map((m: any) => [m.id, m.sessionOptions])).toEqual([
      ["alpha-1", declaredOptions],
      ["beta-2", declaredOptions],
    ]);
    const received = agentReceived(log);
    expect(received.map((m) => m.method)).toEqual(["initialize", "session/new"]);
    expect(received[0]!.params.clientCapabilities).toEqual({ fs: { readTextFile: false, writeTextFile: false }, terminal: false, auth: { terminal: true } });
    expect(received[1]!.params).toEqual({ cwd: bridge.dir, mcpServers: [] });
    // Within 60 s on the bridge clock (the harness clock stands still) the read is reused.
    const second = await list(bridge, spec);
    expect(second.result).toEqual(first.result);
    expect(agentReceived(log).filter((m) => m.method === "session/new")).toHaveLength(1);
  });

  it("runs the options session while the list command runs, not after it", async () => {
    bridge = startInProcessBridge();
    // The list command prints only once the options agent has received its first line (the log file
    // appears); run one after the other, the list would wait for ever and time out.
    const { spec: probe, log } = fixtureLaunchSpec(bridge.dir, {}, "agent");
    const { spec } = cliFixtureSpec(bridge.dir, { sessionResult: declared, modelList: { stdout: lines, afterFile: log } });
    expect(probe.args).toEqual(spec.args);
    expect(existsSync(log)).toBe(false);
    const response = await list(bridge, spec);
    expect(response.result.models.map((m: any) => [m.id, m.sessionOptions])).toEqual([
      ["alpha-1", declaredOptions],
      ["beta-2", declaredOptions],
    ]);
  });

  it("keeps the list when the options agent refuses: logged, models without sessionOptions, nothing cached", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = cliFixtureSpec(bridge.dir, { initialize: "error", modelList: { stdout: lines } });
    const response = await list(bridge, spec);
    expect(response.result.models.map((m: any) => m.id)).toEqual(["alpha-1", "beta-2"]);
    for (const model of response.result.models) expect(model).not.toHaveProperty("sessionOptions");
    const label = [spec.command, ...(spec.args as string[])].join(" ");
    expect(bridge.logs.filter((line) => line.startsWith("model/list:"))).toEqual([
      `model/list: could not read the session options of ${label} (fixture agent refuses to initialize); the models are listed without them`,
    ]);
    // A failed read is not cached: the next listing asks again.
    await list(bridge, spec);
    expect(agentReceived(log).filter((m) => m.method === "initialize")).toHaveLength(2);
  });

  it("keeps the list when the options agent never answers: one timeout bounds the read", async () => {
    // The timeout only detects the stuck agent. On a fake clock it passes once the list command has
    // ended (its time limit cancelled) and the options read waits for initialize.
    const clock = createFakeScheduler();
    bridge = startInProcessBridge({ modelListTimeoutMs: 3_000, scheduler: clock });
    const { spec } = cliFixtureSpec(bridge.dir, { initialize: "never", modelList: { stdout: lines } });
    const listEnded = clock.whenCancelled((t) => t.delayMs === 3_000);
    const answered = list(bridge, spec);
    await listEnded;
    await clock.whenPending((t) => t.delayMs === 3_000);
    clock.advance(3_000);
    const response = await answered;
    expect(response.result.models.map((m: any) => [m.id, m.sessionOptions])).toEqual([
      ["alpha-1", undefined],
      ["beta-2", undefined],
    ]);
    expect(bridge.logs.filter((line) => line.startsWith("model/list:"))).toHaveLength(1);
    expect(bridge.logs.find((line) => line.startsWith("model/list:"))).toMatch(
      /^model\/list: could not read the session options of .* \(no answer within 3000 ms\); the models are listed without them$/,
    );
  });

  it("keeps the list when the agent command is no ACP agent and exits at once", async () => {
    bridge = startInProcessBridge();
    const { spec: lister } = cliFixtureSpec(bridge.dir, { modelList: { stdout: lines } });
    // The agent command prints a line and exits: initialize fails on the exit, not on a timeout
    // (this test would exceed vitest's 5 s limit waiting for the 30 s default).
    const spec = { ...lister, args: ["-e", "console.log('not an ACP agent')"] };
    const response = await list(bridge, spec);
    expect(response.result.models.map((m: any) => [m.id, m.sessionOptions])).toEqual([
      ["alpha-1", undefined],
      ["beta-2", undefined],
    ]);
    expect(bridge.logs.some((line) => line.startsWith("model/list: could not read the session options of"))).toBe(true);
  });

  it("fails with spawn ENOENT for a missing command, without reporting the options session", async () => {
    bridge = startInProcessBridge();
    const spec = { displayName: "Gone", command: "definitely-missing-acp-agent-cli", args: ["acp"], env: {}, modelCli: { listArgs: ["--list"], primaryModels: [] } };
    const response = await list(bridge, spec);
    expect(response.error).toEqual({ code: -32000, message: "spawn definitely-missing-acp-agent-cli ENOENT" });
    expect(bridge.logs.filter((line) => line.startsWith("model/list:"))).toEqual([]);
  });
});
