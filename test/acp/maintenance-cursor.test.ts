/**
 * Cursor's maintenance (spec 30 §1.3, spec 20 §7): the saved-token location, local sign-in
 * evidence, and usage through an injected fake transport (no socket is ever opened).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CURSOR_USAGE_TIMEOUT_MS, cursorAuthFilePath, normalizeCursorUsage, readCursorSignIn, readCursorUsage } from "../../stack/acp/maintenance/cursor.js";
import { createMaintenanceIo, MaintenanceNetworkRefusedError, readSmallTextFile, refuseUsageFetch } from "../../stack/acp/maintenance/io.js";
import { ProviderUsageResultSchema, type AcpUsageFetch, type AcpUsageFetchRequest, type ProviderUsage, type ProviderUsageResult } from "../../stack/acp/maintenance/shapes.js";

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "acp-maint-cursor-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

/** Linux-style maintenance I/O rooted at a temp home; `token` writes Cursor's auth file. */
function linuxIo(options: { token?: string | null; env?: Record<string, string>; fetchUsage?: AcpUsageFetch } = {}) {
  const home = tempDir();
  const env = { HOME: home, ...options.env };
  const io = createMaintenanceIo(env, { platform: "linux", ...(options.fetchUsage ? { fetchUsage: options.fetchUsage } : {}) });
  if (options.token !== undefined) {
    const file = cursorAuthFilePath(io);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(options.token === null ? {} : { accessToken: options.token }));
  }
  return io;
}

/** The `usage` member of a supported answer (fails the test on `{supported:false}`). */
function usageOf(result: ProviderUsageResult): ProviderUsage {
  if (!result.supported) throw new Error("expected a supported usage answer");
  return result.usage;
}

/** A fake transport answering by operation and recording every call. */
function fakeTransport(answers: Record<string, { status: number; body?: unknown } | Error>) {
  const calls: AcpUsageFetchRequest[] = [];
  const fetchUsage: AcpUsageFetch = async (request) => {
    calls.push(request);
    const answer = answers[request.operation];
    if (answer === undefined) throw new Error(`unexpected operation ${request.operation}`);
    if (answer instanceof Error) throw answer;
    return { status: answer.status, body: answer.body };
  };
  return { calls, fetchUsage };
}

describe("Cursor's saved token and sign-in evidence", () => {
  it("token file per platform, from the maintenance env", () => {
    const base = { homeDir: "/h" };
    expect(cursorAuthFilePath({ ...base, platform: "linux", env: {} })).toBe(path.join("/h", ".config", "cursor", "auth.json"));
    expect(cursorAuthFilePath({ ...base, platform: "linux", env: { XDG_CONFIG_HOME: "/x" } })).toBe(path.join("/x", "cursor", "auth.json"));
    expect(cursorAuthFilePath({ ...base, platform: "darwin", env: { XDG_CONFIG_HOME: "/x" } })).toBe(path.join("/h", ".cursor", "auth.json"));
    expect(cursorAuthFilePath({ ...base, platform: "win32", env: { APPDATA: "/a" } })).toBe(path.join("/a", "Cursor", "auth.json"));
  });

  it("env key or saved token → signed in; no token → signed out on Linux, no evidence on macOS", async () => {
    expect(await readCursorSignIn(linuxIo({ token: "t" }))).toMatchObject({ signedIn: true });
    expect(await readCursorSignIn(linuxIo({ env: { CURSOR_AUTH_TOKEN: "k" } }))).toEqual({ signedIn: true, accountEmail: null, source: "env CURSOR_AUTH_TOKEN" });
    const out = linuxIo({ token: null });
    expect(await readCursorSignIn(out)).toEqual({ signedIn: false, source: cursorAuthFilePath(out) });
    expect(await readCursorSignIn(linuxIo())).toMatchObject({ signedIn: false });
    expect(await readCursorSignIn(createMaintenanceIo({ HOME: tempDir() }, { platform: "darwin" }))).toBeUndefined();
    const garbled = linuxIo({ token: "t" });
    writeFileSync(cursorAuthFilePath(garbled), "{not json");
    expect(await readCursorSignIn(garbled)).toMatchObject({ signedIn: false });
  });
});

describe("Cursor usage through the injected transport", () => {
  it("parses plan usage, the first spend limit and the plan label; calls carry the token and the timeout", async () => {
    const end = Date.UTC(2026, 11, 1);
    const { calls, fetchUsage } = fakeTransport({
      currentPeriodUsage: {
        status: 200,
        body: { billingCycleEnd: String(end), planUsage: { totalPercentUsed: 42.5 }, spendLimitUsage: { individualLimit: 2000, individualUsed: 500, pooledLimit: 9000 } },
      },
      planInfo: { status: 200, body: { planInfo: { planName: "Pro" } } },
    });
    const result = await readCursorUsage(linuxIo({ token: "tok-1", fetchUsage }));
    expect(result).toEqual({
      supported: true,
      usage: {
        status: "ok",
        accountEmail: null,
        planLabel: "Pro",
        windows: [
          { label: "Plan usage", usedPercent: 42.5, resetsAt: new Date(end).toISOString() },
          { label: "On-demand spend", usedPercent: 25, resetsAt: new Date(end).toISOString(), cost: { usedUsdCents: 500, limitUsdCents: 2000 } },
        ],
      },
    });
    expect(ProviderUsageResultSchema.parse(result)).toEqual(result);
    expect(calls.map((c) => c.operation).sort()).toEqual(["currentPeriodUsage", "planInfo"]);
    for (const call of calls) expect(call).toMatchObject({ vendor: "cursor", accessToken: "tok-1", timeoutMs: CURSOR_USAGE_TIMEOUT_MS });
  });

  it("401 → expired; other failures → error with the HTTP status; a failed plan call only loses the label", async () => {
    const expired = fakeTransport({ currentPeriodUsage: { status: 200, body: {} }, planInfo: { status: 401 } });
    expect(await readCursorUsage(linuxIo({ token: "t", fetchUsage: expired.fetchUsage }))).toEqual({ supported: true, usage: { status: "expired" } });
    const down = fakeTransport({ currentPeriodUsage: { status: 503 }, planInfo: { status: 200, body: {} } });
    expect(usageOf(await readCursorUsage(linuxIo({ token: "t", fetchUsage: down.fetchUsage })))).toMatchObject({ status: "error", message: "Cursor usage request failed (HTTP 503)." });
    const noPlan = fakeTransport({ currentPeriodUsage: { status: 200, body: { planUsage: {} } }, planInfo: { status: 500 } });
    expect(usageOf(await readCursorUsage(linuxIo({ token: "t", fetchUsage: noPlan.fetchUsage })))).toEqual({
      status: "ok",
      accountEmail: null,
      planLabel: null,
      windows: [{ label: "Plan usage", usedPercent: 0, resetsAt: null }],
    });
    const thrown = fakeTransport({ currentPeriodUsage: new Error("socket hang up"), planInfo: { status: 200, body: {} } });
    expect(usageOf(await readCursorUsage(linuxIo({ token: "t", fetchUsage: thrown.fetchUsage })))).toMatchObject({ status: "error", message: "socket hang up" });
  });

  it("malformed bodies, clamping, and a zero limit", () => {
    expect(normalizeCursorUsage("nope", {})).toMatchObject({ status: "error", message: "Cursor usage response was malformed." });
    expect(normalizeCursorUsage({ spendLimitUsage: { overallLimit: -1 } }, {})).toMatchObject({ status: "error" });
    const over = normalizeCursorUsage({ planUsage: { totalPercentUsed: 180 }, spendLimitUsage: { overallLimit: "0", individualLimit: 10, individualUsed: 5 } }, { planInfo: null });
    expect(over).toEqual({ status: "ok", accountEmail: null, planLabel: null, windows: [{ label: "Plan usage", usedPercent: 100, resetsAt: null }] });
    const spent = normalizeCursorUsage({ spendLimitUsage: { overallLimit: 100, overallUsed: 250 } }, "bad plan");
    expect(spent).toMatchObject({ status: "ok", windows: [{ label: "On-demand spend", usedPercent: 100, cost: { usedUsdCents: 250, limitUsdCents: 100 } }] });
  });

  it("no token: unauthenticated on Linux; an error (not a sign-out claim) with an API key or on macOS", async () => {
    const { calls, fetchUsage } = fakeTransport({});
    expect(await readCursorUsage(linuxIo({ fetchUsage }))).toEqual({ supported: true, usage: { status: "unauthenticated" } });
    expect(usageOf(await readCursorUsage(linuxIo({ env: { CURSOR_API_KEY: "k" }, fetchUsage }))).status).toBe("error");
    expect(usageOf(await readCursorUsage(createMaintenanceIo({ HOME: tempDir() }, { platform: "darwin", fetchUsage }))).status).toBe("error");
    expect(calls).toEqual([]);
  });

  it("the default transport refuses before any socket: an honest error naming why", async () => {
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    await expect(refuseUsageFetch({ vendor: "cursor", operation: "planInfo", accessToken: "t", timeoutMs: 1 })).rejects.toBeInstanceOf(MaintenanceNetworkRefusedError);
    const result = await readCursorUsage(linuxIo({ token: "t" }));
    expect(result).toMatchObject({ supported: true, usage: { status: "error", planLabel: null, accountEmail: null } });
    expect(result.supported && result.usage.status === "error" && result.usage.message).toMatch(/^cursor usage needs the vendor's network API/);
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});

describe("maintenance I/O defaults (spec 30 §6.5)", () => {
  it("home from the env, small local reads only", async () => {
    const dir = tempDir();
    expect(createMaintenanceIo({ HOME: dir }, { platform: "linux" }).homeDir).toBe(dir);
    expect(createMaintenanceIo({ USERPROFILE: "C:\\u", HOME: "/h" }, { platform: "win32" }).homeDir).toBe("C:\\u");
    writeFileSync(path.join(dir, "small.json"), "{}");
    writeFileSync(path.join(dir, "big.json"), Buffer.alloc(1024 * 1024 + 1, 32));
    expect(await readSmallTextFile(path.join(dir, "small.json"))).toBe("{}");
    expect(await readSmallTextFile(path.join(dir, "big.json"))).toBeNull();
    expect(await readSmallTextFile(path.join(dir, "absent.json"))).toBeNull();
    expect(await readSmallTextFile(dir)).toBeNull();
  });
});
