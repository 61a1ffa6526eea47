/**
 * Provider maintenance through the ACP bridge (spec 20 §1.2, §4 cell 4; spec 30 §1.1, §2.1, §6.5):
 * the real recorded `provider/installation/status` request replayed against a fake `cursor-agent`
 * on the maintenance env's PATH, health, usage and installation/run, and dialect resolution.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createAcpProviderBridge } from "../../stack/acp/bridge.js";
import type { AcpBridgeOptions } from "../../stack/acp/bridge-runtime.js";
import { createAcpDialectRegistry } from "../../stack/acp/dialects/registry.js";
import { cursorAcpDialect, genericAcpDialect, grokAcpDialect, ompAcpDialect, opencodeAcpDialect } from "../../stack/acp/dialects/index.js";
import { parseCliVersion } from "../../stack/acp/maintenance/executable.js";
import { ProviderHealthResultSchema, ProviderInstallationRunResultSchema, ProviderInstallationStatusSchema, ProviderUsageResultSchema } from "../../stack/acp/maintenance/shapes.js";
import type { BridgeContext } from "../../stack/bridge-kit/define.js";
import { createBridgeIo } from "../../stack/bridge-kit/io.js";
import { REPO_ROOT } from "./fixture-agent-build.js";

const CELL = path.resolve(REPO_ROOT, "../shared/recordings/acp-cursor/model-list");

interface LaneLine {
  line: string;
}
function laneMessages(file: string): any[] {
  return readFileSync(path.join(CELL, file), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse((JSON.parse(l) as LaneLine).line));
}
const recordedRequest = () => laneMessages("runtime→bridge.ndjson").find((m) => m.method === "provider/installation/status");
const recordedReply = (id: unknown) => laneMessages("bridge→runtime.ndjson").find((m) => m.id === id && m.result !== undefined);

const FAKE_VERSION = "7.7.7-maint.fake";
const dirs: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

/** A directory holding an executable `name` that prints `<name> <version>` for `--version`. */
function fakeAgentDir(name = "cursor-agent", version = FAKE_VERSION): string {
  const dir = tempDir("acp-maint-bin-");
  const file = path.join(dir, name);
  writeFileSync(file, `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "${name} ${version}"; exit 0; fi\nexit 3\n`);
  chmodSync(file, 0o755);
  return dir;
}

/** A bridge whose raw env is `env` (only these variables), answering raw request lines. */
function maintenanceBridge(env: Record<string, string>, options: AcpBridgeOptions = {}) {
  const bridge = createAcpProviderBridge({ now: () => 0, ...options });
  const out: any[] = [];
  const io = createBridgeIo((line) => out.push(JSON.parse(line)));
  const dir = tempDir("acp-maint-ctx-");
  const ctx: BridgeContext = { providerId: "acp-cursor", dataDir: dir, tempDir: dir, io, env, log: () => {} };
  let nextId = 500;
  const send = async (message: any): Promise<any> => {
    await bridge.handleLine(JSON.stringify(message), ctx, message);
    const reply = out.find((m) => m.id === message.id && m.method === undefined);
    if (!reply) throw new Error(`no reply to ${message.method}`);
    return reply;
  };
  return {
    send,
    async request(method: string, params: unknown): Promise<any> {
      return (await send({ jsonrpc: "2.0", id: nextId++, method, params })).result;
    },
  };
}

const spec = (command: string, env: Record<string, string> = {}) => ({ displayName: "Agent", command, args: ["acp"], env });

/** The JSON type of a value, `null` and arrays told apart. */
const typeOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

describe("provider/installation/status (spec 20 §1.2, §4 cell 4)", () => {
  it("replays the recorded request: the reference reply's exact keys and value types, equal machine-independent values", async () => {
    const request = recordedRequest();
    const reference = recordedReply(request.id).result;
    const bin = fakeAgentDir();
    const bridge = maintenanceBridge({ PATH: bin });
    const reply = await bridge.send(request);
    expect(reply.id).toBe(request.id);
    const ours = reply.result;
    expect(Object.keys(ours).sort()).toEqual(Object.keys(reference).sort());
    for (const key of Object.keys(reference)) expect([key, typeOf(ours[key])]).toEqual([key, typeOf(reference[key])]);
    for (const key of [
      "executableName",
      "installed",
      "installSource",
      "latestVersion",
      "minimumSupportedVersion",
      "npmPackageName",
      "npmGlobalPackageVersion",
      "installAction",
      "needsUpdate",
      "versionUnsupported",
    ]) {
      expect([key, ours[key]]).toEqual([key, reference[key]]);
    }
    expect(ours.executablePath).toBe(path.join(bin, "cursor-agent"));
    expect(ours.currentVersion).toBe(FAKE_VERSION);
    expect(ProviderInstallationStatusSchema.parse(ours)).toEqual(ours);
    expect(ProviderInstallationStatusSchema.safeParse(reference).success).toBe(true);
  });

  it("the recorded CLI version line parses to the version the reference replied", () => {
    const manifest = JSON.parse(readFileSync(path.join(CELL, "manifest.json"), "utf8"));
    const reference = recordedReply(recordedRequest().id).result;
    expect(parseCliVersion(manifest.cliVersion)).toBe(reference.currentVersion);
  });

  it("not installed: same keys, executablePath/currentVersion null, installSource notInstalled", async () => {
    const request = recordedRequest();
    const reference = recordedReply(request.id).result;
    const bridge = maintenanceBridge({ PATH: tempDir("acp-maint-empty-") });
    const ours = (await bridge.send(request)).result;
    expect(Object.keys(ours).sort()).toEqual(Object.keys(reference).sort());
    expect(ours).toMatchObject({ executableName: "cursor-agent", executablePath: null, installed: false, installSource: "notInstalled", currentVersion: null, installAction: null });
    expect(ProviderInstallationStatusSchema.parse(ours)).toEqual(ours);
  });

  it("PATH comes from the spec env over the bridge env (spec 30 §6.5); no launch spec → executableName ''", async () => {
    const bin = fakeAgentDir("my-agent", "2.0.1");
    const bridge = maintenanceBridge({ PATH: tempDir("acp-maint-empty-") });
    const found = await bridge.request("provider/installation/status", { providerOptions: { acpLaunchSpec: spec("my-agent", { PATH: bin }) } });
    expect(found).toMatchObject({ installed: true, executablePath: path.join(bin, "my-agent"), currentVersion: "2.0.1" });
    const none = await bridge.request("provider/installation/status", {});
    expect(none).toMatchObject({ executableName: "", installed: false, executablePath: null });
    expect(ProviderInstallationStatusSchema.safeParse(none).success).toBe(true);
  });
});

describe("provider/health (spec 20 §1.2)", () => {
  const linuxOnly = process.platform === "linux";

  it("ready with the installed version when Cursor's saved token exists; unauthenticated without one", async () => {
    const bin = fakeAgentDir();
    const config = tempDir("acp-maint-xdg-");
    const bridge = maintenanceBridge({ PATH: bin, HOME: config, XDG_CONFIG_HOME: config });
    const params = { providerId: "acp-cursor", providerOptions: { acpLaunchSpec: spec("cursor-agent") } };
    if (linuxOnly) {
      const signedOut = await bridge.request("provider/health", params);
      expect(signedOut.health).toMatchObject({ status: "unauthenticated", installedVersion: FAKE_VERSION, loginCommand: "cursor-agent login" });
      expect(signedOut.health.statusMessage).toContain(path.join(config, "cursor", "auth.json"));
      expect(ProviderHealthResultSchema.parse(signedOut)).toEqual(signedOut);
    }
    mkdirSync(path.join(config, "cursor"), { recursive: true });
    writeFileSync(path.join(config, "cursor", "auth.json"), JSON.stringify({ accessToken: "invented-token" }));
    mkdirSync(path.join(config, ".cursor"), { recursive: true });
    writeFileSync(path.join(config, ".cursor", "auth.json"), JSON.stringify({ accessToken: "invented-token" }));
    const ready = await bridge.request("provider/health", params);
    expect(ready).toEqual({
      supported: true,
      health: {
        status: "ready",
        statusMessage: null,
        accountEmail: null,
        planLabel: null,
        installedVersion: FAKE_VERSION,
        minimumSupportedVersion: null,
        canInstall: false,
        canUpdate: false,
        loginCommand: "cursor-agent login",
      },
    });
  });

  it("an auth env key in the spec env counts as signed in", async () => {
    const bridge = maintenanceBridge({ PATH: fakeAgentDir(), HOME: tempDir("acp-maint-home-"), XDG_CONFIG_HOME: tempDir("acp-maint-xdg-") });
    const result = await bridge.request("provider/health", { providerOptions: { acpLaunchSpec: spec("cursor-agent", { CURSOR_API_KEY: "invented" }) } });
    expect(result.health.status).toBe("ready");
  });

  it("not_installed, unknown without a launch command, and ready for agents without sign-in evidence", async () => {
    const bridge = maintenanceBridge({ PATH: fakeAgentDir("hermes", "0.4.0") });
    const missing = await bridge.request("provider/health", { providerId: "acp-cursor", providerOptions: { acpLaunchSpec: spec("cursor-agent") } });
    expect(missing.health).toMatchObject({ status: "not_installed", installedVersion: null, loginCommand: "cursor-agent login" });
    expect(missing.health.statusMessage).toContain("cursor-agent");
    const unknown = await bridge.request("provider/health", { providerId: "acp-custom-x", providerOptions: {} });
    expect(unknown.health).toMatchObject({ status: "unknown", loginCommand: null });
    const hermes = await bridge.request("provider/health", { providerId: "acp-hermes-agent", providerOptions: { acpLaunchSpec: spec("hermes") } });
    expect(hermes.health).toMatchObject({ status: "ready", installedVersion: "0.4.0", loginCommand: "hermes login" });
    for (const r of [missing, unknown, hermes]) expect(ProviderHealthResultSchema.safeParse(r).success).toBe(true);
  });

  it("loginCommand falls back to the resolved dialect's (explicit acpDialect beats the command)", async () => {
    const bridge = maintenanceBridge({ PATH: fakeAgentDir("my-grok", "1.0.0") });
    const viaDialect = await bridge.request("provider/health", { providerId: "acp-custom-g", providerOptions: { acpLaunchSpec: spec("my-grok"), acpDialect: "grok" } });
    expect(viaDialect.health).toMatchObject({ status: "ready", loginCommand: "grok login" });
    const generic = await bridge.request("provider/health", { providerId: "acp-custom-g", providerOptions: { acpLaunchSpec: spec("my-grok") } });
    expect(generic.health.loginCommand).toBeNull();
  });
});

describe("provider/usage (spec 20 §1.2, spec 30 §2.1)", () => {
  it("{supported:false} unless the resolved dialect reads usage", async () => {
    const bridge = maintenanceBridge({ PATH: fakeAgentDir() });
    for (const options of [{ acpLaunchSpec: spec("opencode") }, { acpLaunchSpec: spec("cursor-agent"), acpDialect: "acp" }, {}]) {
      expect(await bridge.request("provider/usage", { providerOptions: options })).toEqual({ supported: false });
    }
  });

  it("Cursor: not_installed, unauthenticated, then the default transport refuses without touching the network", async () => {
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    const config = tempDir("acp-maint-xdg-");
    const env = { HOME: config, XDG_CONFIG_HOME: config };
    const missing = await maintenanceBridge({ ...env, PATH: tempDir("acp-maint-empty-") }).request("provider/usage", { providerOptions: { acpLaunchSpec: spec("cursor-agent") } });
    expect(missing).toEqual({ supported: true, usage: { status: "not_installed" } });
    const bridge = maintenanceBridge({ ...env, PATH: fakeAgentDir("agent-x") });
    const params = { providerOptions: { acpLaunchSpec: spec("agent-x"), acpDialect: "cursor" } };
    if (process.platform === "linux") expect(await bridge.request("provider/usage", params)).toEqual({ supported: true, usage: { status: "unauthenticated" } });
    for (const dir of [path.join(config, "cursor"), path.join(config, ".cursor")]) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, "auth.json"), JSON.stringify({ accessToken: "invented-token" }));
    }
    const refused = await bridge.request("provider/usage", params);
    expect(refused).toMatchObject({ supported: true, usage: { status: "error", planLabel: null, accountEmail: null } });
    expect(refused.usage.message).toMatch(/no network calls/);
    expect(ProviderUsageResultSchema.parse(refused)).toEqual(refused);
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});

describe("provider/installation/run (spec 20 §1.2)", () => {
  it("Cursor has no installer in the spec: {available:false, message} for install and update", async () => {
    const bridge = maintenanceBridge({ PATH: tempDir("acp-maint-empty-") });
    for (const action of ["install", "update"]) {
      const result = await bridge.request("provider/installation/run", { providerId: "acp-cursor", providerOptions: { acpLaunchSpec: spec("cursor-agent") }, action });
      expect(result.available).toBe(false);
      expect(result.message).toContain("cursor-agent");
      expect(ProviderInstallationRunResultSchema.parse(result)).toEqual(result);
    }
  });

  it("a dialect installer gives an sh -c plan (never run) while the command is missing; none once installed or for update", async () => {
    const dialects = createAcpDialectRegistry();
    const script = "echo installing-invented-agent";
    dialects.register({ id: "installable", maintenance: { loginCommand: "inv login", installer: (platform) => (platform === "win32" ? undefined : { script }) } });
    const empty = tempDir("acp-maint-empty-");
    const bridge = maintenanceBridge({ PATH: empty }, { dialects });
    const params = { providerOptions: { acpLaunchSpec: spec("inv-agent"), acpDialect: "installable" } };
    const status = await bridge.request("provider/installation/status", params);
    if (process.platform === "win32") return;
    expect(status.installAction).toEqual({ kind: "install", label: "Install", command: script });
    const plan = await bridge.request("provider/installation/run", { ...params, action: "install" });
    expect(plan).toEqual({ available: true, command: { command: "sh", args: ["-c", script], displayCommand: script }, verification: { kind: "installed" } });
    expect(ProviderInstallationRunResultSchema.parse(plan)).toEqual(plan);
    const health = await bridge.request("provider/health", params);
    expect(health.health).toMatchObject({ status: "not_installed", canInstall: true, loginCommand: "inv login" });
    expect((await bridge.request("provider/installation/run", { ...params, action: "update" })).available).toBe(false);

    const installed = maintenanceBridge({ PATH: fakeAgentDir("inv-agent") }, { dialects });
    expect((await installed.request("provider/installation/status", params)).installAction).toBeNull();
    const again = await installed.request("provider/installation/run", { ...params, action: "install" });
    expect(again).toEqual({ available: false, message: "Nothing to run: inv-agent is already installed." });
  });
});

describe("dialect maintenance objects (spec 30 §1.3–1.7, §2.1)", () => {
  it("Cursor reads sign-in and usage and has no installer; grok/opencode only name a sign-in command; omp and acp have none", () => {
    expect(cursorAcpDialect.maintenance?.loginCommand).toBe("cursor-agent login");
    expect(typeof cursorAcpDialect.maintenance?.readUsage).toBe("function");
    expect(typeof cursorAcpDialect.maintenance?.readSignIn).toBe("function");
    expect(cursorAcpDialect.maintenance?.installer).toBeUndefined();
    expect(grokAcpDialect.maintenance).toEqual({ loginCommand: "grok login" });
    expect(opencodeAcpDialect.maintenance).toEqual({ loginCommand: "opencode auth login" });
    expect(ompAcpDialect.maintenance).toBeUndefined();
    expect(genericAcpDialect.maintenance).toBeUndefined();
  });
});
