/**
 * `parity probe` dispatches through the family list (issue 20): a family defined only here
 * ("peek") is probed by its own hook, with its provider prepared as `parity record` prepares it
 * (a temp root holding workspace and fresh HOME, removed afterwards); a family without a probe
 * is a usage error naming it; `--command` reaches the first family whose probe takes commands.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { CliContext } from "../../harness/cli/context.js";
import { createProbeCommand } from "../../harness/cli/probe.js";
import { BRIDGE_FAMILIES, probeProviderIds, type BridgeFamily, type FamilyCommandProbeRequest, type FamilyProviderProbeRequest } from "../../harness/families/index.js";
import { baseEnv, isolatedHomeEnv } from "../../harness/families/record-provider.js";

const work = mkdtempSync(path.join(tmpdir(), "parity-peek-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** What the peek family's hooks saw, in order (the run's dirs existed while its hook ran). */
const seen: Array<{ provider?: FamilyProviderProbeRequest; rootExisted?: boolean; command?: FamilyCommandProbeRequest }> = [];

const peekFamily: BridgeFamily = {
  id: "peek",
  providers: "peek-*",
  handles: (provider) => provider.startsWith("peek-"),
  modulePath: path.join(work, "no-bridge.mjs"),
  recordProviders: () => ({
    bridges: {
      "peek-one": {
        id: "peek-one",
        modulePath: path.join(work, "no-bridge.mjs"),
        takesModelEndpoint: false,
        async prepare(dirs) {
          return { env: { ...baseEnv(), ...(await isolatedHomeEnv(dirs.home)) }, options: { peek: true }, cliVersion: "peek 0.0.1", note: "test family" };
        },
      },
    },
  }),
  probe: {
    async provider(request) {
      seen.push({ provider: request, rootExisted: existsSync(request.dirs.root) && existsSync(request.prepared.env.HOME!) });
      return { reachable: true, label: "peek one", result: { reachable: true, answered: request.prepared.options }, text: "peek one: reachable\n" };
    },
    async command(request) {
      seen.push({ command: request });
      return { reachable: false, label: request.label, result: { reachable: false }, text: `${request.label}: not reachable\n` };
    },
  },
};
// A family without a probe hook.
const muteFamily: BridgeFamily = { ...peekFamily, id: "mute", providers: "mute", handles: (p) => p === "mute", probe: undefined, recordProviders: () => ({}) };

function cli(): { ctx: CliContext; out: string[] } {
  const out: string[] = [];
  return { out, ctx: { out: (t) => out.push(t), err: () => {}, color: false, verbose: false, ci: false, cwd: work } };
}

describe("parity probe calls the family's probe hook through the list", () => {
  it("probes a test family's provider, prepared as record prepares it, and removes the run's dirs", async () => {
    const parent = mkdtempSync(path.join(work, "parent-"));
    const command = createProbeCommand({ families: [peekFamily, ...BRIDGE_FAMILIES], tempDir: parent });
    const { ctx, out } = cli();
    expect(await command.run({ provider: "peek-one", network: "host", json: false, "timeout-ms": 1000 }, ctx)).toBe(0);
    expect(out.join("")).toBe("peek one: reachable\n");
    const { provider, rootExisted } = seen.at(-1)!;
    expect(rootExisted).toBe(true);
    expect(provider!.providerId).toBe("peek-one");
    expect(provider!.prepared.options).toEqual({ peek: true });
    expect(provider!.timeoutMs).toBe(1000);
    expect(provider!.spawn).toBeUndefined();
    expect(path.dirname(provider!.dirs.root)).toBe(parent);
    expect(provider!.prepared.env.HOME).toBe(provider!.dirs.home);
    expect(readdirSync(parent)).toEqual([]);

    const json = cli();
    expect(await command.run({ provider: "peek-one", network: "host", json: true, prompt: "hi", "timeout-ms": 1000 }, json.ctx)).toBe(0);
    expect(JSON.parse(json.out.join(""))).toEqual({ agent: "peek one", reachable: true, answered: { peek: true } });
    expect(seen.at(-1)!.provider!.prompt).toBe("hi");
  });

  it("lists only providers whose family probes, and refuses a family without a probe", async () => {
    const families = [muteFamily, peekFamily, ...BRIDGE_FAMILIES];
    expect(probeProviderIds(families)).toContain("peek-one");
    expect(probeProviderIds()).not.toContain("echo");
    expect(probeProviderIds()).toHaveLength(13);
    const command = createProbeCommand({ families });
    await expect(command.run({ provider: "mute", network: "host", "timeout-ms": 10 }, cli().ctx)).rejects.toThrowError(
      /^--provider mute: the mute bridge family has no probe \(parity probe knows acp-opencode, .*peek-one/,
    );
    await expect(command.run({ provider: "nobody", network: "host", "timeout-ms": 10 }, cli().ctx)).rejects.toThrowError(/^--provider nobody: no bridge family owns it/);
  });

  it("--command goes to the first family whose probe takes commands", async () => {
    const command = createProbeCommand({ families: [muteFamily, peekFamily, ...BRIDGE_FAMILIES] });
    const { ctx, out } = cli();
    expect(await command.run({ command: "peek-agent --serve 'a b'", network: "host", json: false, "timeout-ms": 10 }, ctx)).toBe(1);
    expect(out.join("")).toBe("peek-agent --serve a b: not reachable\n");
    expect(seen.at(-1)!.command).toMatchObject({ label: "peek-agent --serve a b", args: ["--serve", "a b"], cwd: work, timeoutMs: 10 });
    await expect(createProbeCommand({ families: [muteFamily] }).run({ command: "x", network: "host", "timeout-ms": 10 }, cli().ctx)).rejects.toThrowError(
      /--command: no bridge family probes a bare agent command/,
    );
  });
});
