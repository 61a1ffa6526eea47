/**
 * Launch spec (spec 30 §3.1), shipped agents (§2.1), custom agents (§2.2), dialect selection (§1.2)
 * and launch argument resolution (spec 20 §2.1).
 */
import { describe, expect, it } from "vitest";
import { reservedAcpProviderIds, shippedAcpAgents } from "../../stack/acp/agents/agents.js";
import { CUSTOM_AGENT_GLYPH, listAcpAgents, resolveCustomAcpAgents } from "../../stack/acp/agents/custom-agents.js";
import { selectAcpDialect } from "../../stack/acp/dialects/index.js";
import { buildAgentEnv, resolveAgentArgs } from "../../stack/acp/agents/launch-args.js";
import { AcpLaunchSpecError, acpAgentLabel, acpLaunchSpecSchema, parseAcpLaunchSpec } from "../../stack/acp/agents/launch-spec.js";
import { sanitizeInheritedChildProcessEnv } from "../../stack/bridge-kit/child-env.js";

const base = { displayName: "X", command: "x-agent", args: ["acp"], env: {} };

describe("acpLaunchSpecSchema", () => {
  it("accepts the minimal spec and keeps optional fields", () => {
    expect(parseAcpLaunchSpec(base)).toEqual(base);
    expect(parseAcpLaunchSpec({ ...base, cwd: "/w", env: { API_KEY: "k" } })).toEqual({ ...base, cwd: "/w", env: { API_KEY: "k" } });
  });

  it("is strict at the top level: an unknown key is an error naming it and acpLaunchSpec", () => {
    expect(() => parseAcpLaunchSpec({ ...base, comand: "typo" })).toThrowError(AcpLaunchSpecError);
    expect(() => parseAcpLaunchSpec({ ...base, comand: "typo" })).toThrowError(/^Invalid options\.providerOptions\.acpLaunchSpec: .*comand/);
  });

  it("rejects a missing spec, an empty command, a missing env and a bad env name", () => {
    expect(() => parseAcpLaunchSpec(undefined)).toThrowError(/acpLaunchSpec: missing/);
    expect(() => parseAcpLaunchSpec({ ...base, command: "" })).toThrowError(/command: /);
    const { env: _env, ...noEnv } = base;
    expect(() => parseAcpLaunchSpec(noEnv)).toThrowError(/env: /);
    expect(() => parseAcpLaunchSpec({ ...base, env: { "A=B": "c" } })).toThrowError(/env/);
  });

  it("drops a modelCli with empty listArgs and a permissionCli that sets no mode", () => {
    const parsed = acpLaunchSpecSchema.parse({ ...base, modelCli: { listArgs: [], primaryModels: [] }, permissionCli: { insertAfterArgs: 1 } });
    expect(parsed).toEqual(base);
    const kept = acpLaunchSpecSchema.parse({ ...base, permissionCli: { full: ["--yolo"] } });
    expect(kept.permissionCli).toEqual({ full: ["--yolo"] });
  });

  it("validates nested schemas strictly (reasoning levels, modelCli keys)", () => {
    expect(() => parseAcpLaunchSpec({ ...base, reasoningCli: { flag: "--effort", supportedLevels: ["extreme"] } })).toThrowError(/reasoningCli\.supportedLevels/);
    expect(() => parseAcpLaunchSpec({ ...base, modelCli: { listArgs: ["models"], primaryModels: [], extra: 1 } })).toThrowError(/modelCli/);
  });

  it("labels an agent by command and args", () => {
    expect(acpAgentLabel({ command: "cursor-agent", args: ["acp"] })).toBe("cursor-agent acp");
  });
});

describe("shipped agents", () => {
  it("ships the five agents with their commands, family acp, and valid launch specs", () => {
    const agents = shippedAcpAgents();
    expect(agents.map((a) => [a.id, a.displayName, acpAgentLabel(a.launchSpec), a.family])).toEqual([
      ["acp-cursor", "Cursor", "cursor-agent acp", "acp"],
      ["acp-opencode", "opencode", "opencode acp", "acp"],
      ["acp-omp", "omp", "omp acp", "acp"],
      ["acp-grok", "Grok Build", "grok agent stdio", "acp"],
      ["acp-hermes-agent", "Hermes Agent", "hermes acp", "acp"],
    ]);
    for (const agent of agents) expect(acpLaunchSpecSchema.parse(agent.launchSpec)).toEqual(agent.launchSpec);
    expect(reservedAcpProviderIds()).toEqual(["acp-cursor"]);
  });

  it("cursor has no selectFlag now; grok pins the model and inserts --always-approve after its first arg in full mode", () => {
    const cursor = shippedAcpAgents().find((a) => a.id === "acp-cursor")!;
    expect(cursor.launchSpec.modelCli).toEqual({ listArgs: ["--list-models"], primaryModels: [] });
    const grok = shippedAcpAgents().find((a) => a.id === "acp-grok")!;
    expect(resolveAgentArgs(grok.launchSpec, { permissionMode: "full", model: "X", reasoningLevel: "max" }).args).toEqual([
      "--model",
      "X",
      "--reasoning-effort",
      "high",
      "agent",
      "--always-approve",
      "stdio",
    ]);
    expect(resolveAgentArgs(grok.launchSpec, { permissionMode: "accept-edits", model: "acp-default" }).args).toEqual(["agent", "stdio"]);
  });
});

describe("custom agents", () => {
  it("registers acp-<slug> with glyph Toolbox, family acp, fork none, visibility always, dialect as acpDialect", () => {
    const { agents, warnings } = resolveCustomAcpAgents(JSON.stringify([{ id: "my-agent", displayName: "Mine", command: "/opt/mine", args: ["--acp"], dialect: "opencode" }]));
    expect(warnings).toEqual([]);
    expect(agents).toHaveLength(1);
    expect(agents[0]).toMatchObject({
      id: "acp-my-agent",
      icon: CUSTOM_AGENT_GLYPH,
      family: "acp",
      fork: "none",
      visibility: "always",
      custom: true,
      dialect: "opencode",
      launchSpec: { displayName: "Mine", command: "/opt/mine", args: ["--acp"], env: {} },
      bridgeOptions: { acpDialect: "opencode" },
    });
  });

  it("warns and skips: invalid JSON, non-array, bad slug, reserved id, duplicate, invalid launch spec", () => {
    expect(resolveCustomAcpAgents("{oops").warnings[0]).toMatch(/^ACP custom agent setting: not valid JSON/);
    expect(resolveCustomAcpAgents('{"id":"x"}').warnings[0]).toMatch(/expected a JSON array/);
    const { agents, warnings } = resolveCustomAcpAgents(
      JSON.stringify([
        { id: "Bad_Slug", displayName: "B", command: "b" },
        { id: "cursor", displayName: "C", command: "c" },
        { id: "dup", displayName: "D", command: "d" },
        { id: "dup", displayName: "D2", command: "d2" },
        { id: "envbad", displayName: "E", command: "e", env: { "1X": "v" } },
      ]),
    );
    expect(agents.map((a) => a.id)).toEqual(["acp-dup"]);
    expect(warnings).toHaveLength(4);
    expect(warnings[0]).toMatch(/entry 0: id: /);
    expect(warnings[1]).toMatch(/entry 1: id "cursor" is reserved/);
    expect(warnings[2]).toMatch(/entry 3: duplicate id "dup"/);
    expect(warnings[3]).toMatch(/entry 4 \("envbad"\): invalid launch spec: env/);
  });

  it("a custom agent with a shipped installed agent's slug replaces it and inherits nothing it does not set", () => {
    const { agents } = listAcpAgents(JSON.stringify([{ id: "opencode", displayName: "My opencode", command: "/usr/local/bin/opencode", args: ["acp"] }]));
    const opencode = agents.filter((a) => a.id === "acp-opencode");
    expect(opencode).toHaveLength(1);
    expect(opencode[0]!.custom).toBe(true);
    expect(agents.map((a) => a.id)).toContain("acp-cursor");
  });
});

describe("dialect selection (spec 30 §1.2)", () => {
  it("explicit id wins; else the command basename; unknown → generic", () => {
    expect(selectAcpDialect({ explicit: "grok", command: "cursor-agent" }).id).toBe("grok");
    expect(selectAcpDialect({ explicit: "generic", command: "cursor-agent" }).id).toBe("acp");
    expect(selectAcpDialect({ command: "/usr/local/bin/opencode" }).id).toBe("opencode");
    expect(selectAcpDialect({ command: "hermes" }).id).toBe("acp");
    for (const agent of shippedAcpAgents()) {
      const dialect = selectAcpDialect({ explicit: agent.bridgeOptions.acpDialect, command: agent.launchSpec.command });
      expect([agent.id, dialect.id]).toEqual([agent.id, { "acp-cursor": "cursor", "acp-opencode": "opencode", "acp-omp": "omp", "acp-grok": "grok", "acp-hermes-agent": "acp" }[agent.id]]);
    }
  });
});

describe("agent environment (spec 30 §6.5)", () => {
  it("drops BB_*, NODE_ENV, ELECTRON_RUN_AS_NODE and the record dir; overlays spec env, envVars, then extras", () => {
    const env = buildAgentEnv({
      inherited: { PATH: "/bin", HOME: "/h", NODE_ENV: "test", BB_SECRET: "s", BB_PROVIDER_BRIDGE_RECORD_DIR: "/rec", ELECTRON_RUN_AS_NODE: "1", KEEP: "a" },
      sanitize: (e) => sanitizeInheritedChildProcessEnv({ env: e }),
      specEnv: { KEEP: "spec", SPEC_ONLY: "1" },
      envVars: { KEEP: "turn", BB_THREAD_ID: "thr_1" },
      extra: { OPENCODE_CLIENT: "acp" },
    });
    expect(env).toEqual({ PATH: "/bin", HOME: "/h", KEEP: "turn", SPEC_ONLY: "1", BB_THREAD_ID: "thr_1", OPENCODE_CLIENT: "acp" });
  });
});
