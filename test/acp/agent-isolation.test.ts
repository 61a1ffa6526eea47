/**
 * The agent isolation env shared by the probe and `parity record` (stack/acp/agents/agent-isolation.ts).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isolatedHomeEnv, OPENCODE_OFFLINE_ENV as RECORD_OPENCODE_OFFLINE_ENV } from "../../harness/families/record-provider.js";
import { createIsolatedHome, dialectChildEnv, dialectOfflineEnv, isolatedHomeDirs, OPENCODE_OFFLINE_ENV } from "../../stack/acp/agents/agent-isolation.js";
import { OPENCODE_CHILD_ENV } from "../../stack/acp/dialects/index.js";

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), "acp-isolation-"));
  temps.push(dir);
  return dir;
}

describe("agent isolation", () => {
  it("puts HOME and the XDG base dirs inside one directory without creating anything", () => {
    expect(isolatedHomeDirs("/tmp/h")).toEqual({
      HOME: "/tmp/h",
      XDG_CONFIG_HOME: "/tmp/h/.config",
      XDG_DATA_HOME: "/tmp/h/.local/share",
      XDG_CACHE_HOME: "/tmp/h/.cache",
      XDG_STATE_HOME: "/tmp/h/.local/state",
    });
    expect(existsSync("/tmp/h/.config")).toBe(false);
  });

  it("gives opencode its offline switches and child env, other dialects none", () => {
    expect(dialectOfflineEnv("opencode")).toEqual({ OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1" });
    expect(dialectChildEnv("opencode")).toBe(OPENCODE_CHILD_ENV);
    for (const id of ["acp", "cursor", "grok", "omp"]) {
      expect(dialectOfflineEnv(id)).toBeUndefined();
      expect(dialectChildEnv(id)).toBeUndefined();
    }
  });

  it("parity record keeps its names and uses the same env", async () => {
    expect(RECORD_OPENCODE_OFFLINE_ENV).toBe(OPENCODE_OFFLINE_ENV);
    const home = join(temp(), "home");
    const env = await isolatedHomeEnv(home);
    expect(env).toEqual(isolatedHomeDirs(home));
    for (const dir of Object.values(env)) expect(statSync(dir).isDirectory()).toBe(true);
  });

  it("creates a fresh home under the parent and removes it with what was written in it", async () => {
    const parent = temp();
    const home = await createIsolatedHome(parent, "x-");
    expect(readdirSync(parent)).toEqual([home.home.slice(parent.length + 1)]);
    writeFileSync(join(home.env.XDG_DATA_HOME, "db"), "data");
    await home.dispose();
    await home.dispose();
    expect(readdirSync(parent)).toEqual([]);
  });
});
