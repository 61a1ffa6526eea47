/**
 * The shipped-agent table of spec 30 §2.1, row by row (agents.test.ts checks commands, args and
 * selection), and the custom-agent rules of §2.2 that it does not pin.
 */
import { describe, expect, it } from "vitest";
import { shippedAcpAgents } from "../../stack/acp/agents/agents.js";
import { listAcpAgents, resolveCustomAcpAgents } from "../../stack/acp/agents/custom-agents.js";
import { acpLaunchSpecSchema, parseAcpLaunchSpec } from "../../stack/acp/agents/launch-spec.js";

describe("shipped agents, row by row (spec 30 §2.1)", () => {
  it("icon, tint, dialect, fork, visibility, sign-in, compaction and plan per agent", () => {
    const rows = shippedAcpAgents().map((a) => ({
      id: a.id,
      icon: a.icon,
      tint: a.tint ?? null,
      dialect: a.bridgeOptions.acpDialect ?? null,
      fork: a.fork,
      visibility: a.visibility,
      signIn: a.signInCommand,
      compaction: a.supportsManualCompaction,
      plan: a.supportsPlan,
    }));
    expect(rows).toEqual([
      {
        id: "acp-cursor",
        icon: "provider-acp/cursor",
        tint: { light: "#111827", dark: "#F5F5F5" },
        dialect: "cursor",
        fork: "none",
        visibility: "always",
        signIn: "cursor-agent login",
        compaction: false,
        plan: false,
      },
      {
        id: "acp-opencode",
        icon: "provider-acp/opencode",
        tint: { light: "#2563EB", dark: "#2563EB" },
        dialect: "opencode",
        fork: "tip",
        visibility: "installed",
        signIn: "opencode auth login",
        compaction: true,
        plan: false,
      },
      { id: "acp-omp", icon: "provider-acp/omp", tint: { light: "#9333EA", dark: "#9333EA" }, dialect: null, fork: "tip", visibility: "installed", signIn: "omp login", compaction: true, plan: true },
      { id: "acp-grok", icon: "provider-acp/grok", tint: null, dialect: "grok", fork: "none", visibility: "installed", signIn: "grok login", compaction: false, plan: false },
      { id: "acp-hermes-agent", icon: "provider-acp/hermes-agent", tint: null, dialect: null, fork: "tip", visibility: "installed", signIn: "hermes login", compaction: false, plan: false },
    ]);
  });

  it("cursor's bridge options, grok's CLI flags and hermes' native reasoning", () => {
    const byId = Object.fromEntries(shippedAcpAgents().map((a) => [a.id, a]));
    expect(byId["acp-cursor"]!.bridgeOptions).toMatchObject({
      acpDialect: "cursor",
      parameterizedModelPicker: true,
      primaryModels: ["default", "grok-4.6", "gpt-5.6-sol", "claude-opus-5", "claude-fable-5", "composer-2.5"],
      reasoningProbePriorityModelIds: ["grok-4.6", "grok-4.5"],
    });
    expect(byId["acp-cursor"]!.launchSpec.nativeSkillRoots?.project).toContain(".cursor/skills");
    expect(byId["acp-grok"]!.launchSpec).toMatchObject({
      modelCli: { listArgs: ["models"], selectFlag: "--model", primaryModels: ["grok-4.5", "grok-composer-2.5-fast"] },
      permissionCli: { full: ["--always-approve"], insertAfterArgs: 1 },
      reasoningCli: { flag: "--reasoning-effort", supportedLevels: ["low", "medium", "high"], levelValues: { none: "low", xhigh: "high", ultracode: "high", max: "high" }, defaultLevel: "high" },
    });
    expect(byId["acp-hermes-agent"]!.launchSpec.nativeReasoning).toMatchObject({ configId: "reasoning_effort", defaultLevel: "medium" });
    expect(byId["acp-hermes-agent"]!.launchSpec.nativeReasoning!.supportedLevels[0]).toBe("none");
    expect(byId["acp-hermes-agent"]!.launchSpec.nativeReasoning!.supportedLevels.at(-1)).toBe("max");
  });
});

describe("custom agents (spec 30 §2.2)", () => {
  it("optional flags default to false and the launch sub-schemas carry over into the launch spec", () => {
    const { agents, warnings } = resolveCustomAcpAgents(
      JSON.stringify([
        { id: "plain", displayName: "Plain", command: "plain" },
        {
          id: "rich",
          displayName: "Rich",
          command: "rich",
          args: ["acp"],
          env: { RICH_MODE: "1" },
          cwd: "/work",
          supportsManualCompaction: true,
          supportsPlan: true,
          permissionCli: { full: ["--yes"] },
        },
      ]),
    );
    expect(warnings).toEqual([]);
    expect(agents.map((a) => [a.id, a.supportsManualCompaction, a.supportsPlan])).toEqual([
      ["acp-plain", false, false],
      ["acp-rich", true, true],
    ]);
    expect(agents[0]!.launchSpec).toEqual({ displayName: "Plain", command: "plain", args: [], env: {} });
    expect(agents[1]!.launchSpec).toMatchObject({ args: ["acp"], env: { RICH_MODE: "1" }, cwd: "/work", permissionCli: { full: ["--yes"] } });
    // No explicit dialect: no acpDialect, so the command basename decides later.
    expect(agents[0]!.bridgeOptions.acpDialect).toBeUndefined();
  });

  it("unknown entry keys are refused (strict schema) with a warning, never an error", () => {
    const { agents, warnings } = resolveCustomAcpAgents(JSON.stringify([{ id: "typo", displayName: "T", command: "t", comand: "x" }]));
    expect(agents).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^ACP custom agent setting: /);
  });

  it("an invalid setting never hides the shipped agents", () => {
    const { agents } = listAcpAgents("{not json");
    expect(agents.map((a) => a.id)).toEqual(shippedAcpAgents().map((a) => a.id));
  });
});

describe("launch spec sub-schemas (spec 30 §3.1)", () => {
  const base = { displayName: "X", command: "x", args: [], env: {} };

  it("nativeSkillRoots: strict {user, project}, each defaulting to [], entries a path or {path, skipIfManifest?, recursive?, ancestors?}", () => {
    expect(acpLaunchSpecSchema.parse({ ...base, nativeSkillRoots: { user: ["~/skills"] } }).nativeSkillRoots).toEqual({ user: ["~/skills"], project: [] });
    const root = { path: ".agent/skills", skipIfManifest: true, recursive: true, ancestors: false };
    expect(acpLaunchSpecSchema.parse({ ...base, nativeSkillRoots: { project: [root, "plain/dir"] } }).nativeSkillRoots).toEqual({ user: [], project: [root, "plain/dir"] });
    expect(() => parseAcpLaunchSpec({ ...base, nativeSkillRoots: { user: [], project: [], extra: [] } })).toThrow(/nativeSkillRoots/);
    expect(() => parseAcpLaunchSpec({ ...base, nativeSkillRoots: { project: [{ path: "" }] } })).toThrow(/nativeSkillRoots/);
  });

  it("modelCli: selectFlag must be non-empty; permissionCli and nativeReasoning are strict", () => {
    expect(() => parseAcpLaunchSpec({ ...base, modelCli: { listArgs: ["m"], selectFlag: "", primaryModels: [] } })).toThrow(/modelCli/);
    expect(() => parseAcpLaunchSpec({ ...base, permissionCli: { full: ["--y"], other: 1 } })).toThrow(/permissionCli/);
    expect(() => parseAcpLaunchSpec({ ...base, nativeReasoning: { supportedLevels: ["low"] } })).toThrow(/nativeReasoning/);
  });
});
