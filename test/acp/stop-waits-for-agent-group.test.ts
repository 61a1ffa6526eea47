import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AGENT_GROUP_EXIT_POLL_MS, AGENT_KILL_GRACE_MS } from "../../stack/acp/connection/connection.js";
import { createFakeScheduler, type FakeScheduler } from "../helpers/fake-scheduler.js";
import { repoRoot } from "../cli/run-cli.js";
import { fixtureLaunchSpec, startInProcessBridge, threadStartParams, type InProcessBridge, type WireMessage } from "./bridge-harness.js";

// `thread/stop` ends the agent's process group with SIGTERM and answers once the group is gone.
// The input that broke it: claude-code-acp 0.16.2 dies at once on SIGTERM while its child, Claude
// Code's CLI, writes the session's transcript on SIGTERM before it exits; the bridge SIGKILLed the
// whole group the moment the adapter exited, so in 3 of 7 live runs of acp-claude-zed `resume` the
// transcript was never written and `session/resume` failed ("Query closed before response
// received"; harness/record/README.md, "Restore cells and the agent's shutdown"). The fixture
// agent below has that shape; its child persists only when the test lets it, so no race decides.

const wrapper = path.join(repoRoot, "test", "fixtures", "agents", "persists-after-sigterm.mjs");

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie is dead for our purpose: it runs nothing.
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
};

async function gone(pid: number): Promise<boolean> {
  // A process that is not our child cannot be awaited, so this polls; the bound only stops a test
  // that would never pass (a loaded machine may take far longer than a quick exit).
  for (let i = 0; i < 200 && alive(pid); i += 1) await new Promise((r) => setImmediate(r));
  for (let i = 0; i < 500 && alive(pid); i += 1) await new Promise((r) => setTimeout(r, 20));
  return !alive(pid);
}

/** Starts a thread on the shaped agent; returns the writer's pid and the file it persists. */
async function startShapedAgent(clock: FakeScheduler): Promise<{ writerPid: number; persistFile: string }> {
  bridge = startInProcessBridge({ scheduler: clock });
  const { spec } = fixtureLaunchSpec(bridge.dir, {});
  const persistFile = path.join(bridge.dir, "session.persisted");
  const shaped = { ...spec, args: [wrapper, ...(spec.args as string[])], env: { ...(spec.env as Record<string, string>), PERSIST_FILE: persistFile } };
  const started = await bridge.request("thread/start", threadStartParams("thr_persist", shaped, bridge.dir));
  expect(started.error).toBeUndefined();
  // The wrapper starts the agent only after the writer wrote its pid: a started thread has it.
  return { writerPid: Number(readFileSync(`${persistFile}.pid`, "utf8")), persistFile };
}

/** Which comes first: the bridge waiting on the group (a poll armed), or the stop's answer. */
function firstOf(clock: FakeScheduler, stop: Promise<WireMessage>): Promise<"waiting" | "answered"> {
  return Promise.race([clock.whenPending((t) => t.delayMs === AGENT_GROUP_EXIT_POLL_MS).then(() => "waiting" as const), stop.then(() => "answered" as const)]);
}

describe.skipIf(process.platform === "win32")("thread/stop waits for the agent's process group (claude-code-acp's shutdown)", () => {
  it("a child persisting the session on SIGTERM is not killed when the agent exits; the stop answers after it persisted", async () => {
    const clock = createFakeScheduler();
    const { writerPid, persistFile } = await startShapedAgent(clock);
    const stop = bridge!.request("thread/stop", { threadId: "thr_persist", intent: "release" });
    // The agent itself is gone and its pipes closed; the writer is still shutting down.
    expect(await firstOf(clock, stop)).toBe("waiting");
    expect(alive(writerPid)).toBe(true);
    expect(existsSync(persistFile)).toBe(false);
    process.kill(writerPid, "SIGUSR2");
    expect(await gone(writerPid)).toBe(true);
    let answered = false;
    void stop.then(() => (answered = true));
    // Each poll looks at the group again; the clock stays far below the grace, so no SIGKILL decides.
    while (!answered) {
      const polled = await Promise.race([clock.whenPending((t) => t.delayMs === AGENT_GROUP_EXIT_POLL_MS), stop.then(() => undefined)]);
      if (polled) clock.advance(AGENT_GROUP_EXIT_POLL_MS);
    }
    expect((await stop).result).toEqual({ ok: true });
    expect(readFileSync(persistFile, "utf8")).toBe("persisted");
    expect(clock.now()).toBeLessThan(AGENT_KILL_GRACE_MS);
  });

  it("a child that never finishes gets SIGKILL once the grace is over, and the stop answers", async () => {
    const clock = createFakeScheduler();
    const { writerPid, persistFile } = await startShapedAgent(clock);
    const stop = bridge!.request("thread/stop", { threadId: "thr_persist", intent: "release" });
    expect(await firstOf(clock, stop)).toBe("waiting");
    clock.advance(AGENT_KILL_GRACE_MS);
    expect((await stop).result).toEqual({ ok: true });
    expect(await gone(writerPid)).toBe(true);
    expect(existsSync(persistFile)).toBe(false);
  });
});
