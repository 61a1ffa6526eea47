/**
 * Child process of `bench/replay.ts`: replays one recording directory (argv[2]) and prints one
 * JSON line `{lines, replayMs, peakRssBytes, events, ok}`. Run in its own process so the peak
 * RSS is the replay's alone, not the bench's (which also recorded the synthetic cell).
 */
import { replayRecording } from "../harness/replay/replay-recording.js";
import { createMemorySampler } from "./measure.js";

async function main(dir: string): Promise<void> {
  const sampler = createMemorySampler();
  const timer = setInterval(() => sampler.sample(), 10);
  const started = performance.now();
  const result = await replayRecording(dir);
  const replayMs = performance.now() - started;
  sampler.sample();
  clearInterval(timer);
  const lines = Object.values(result.manifest.lines).reduce((a: number, b: number) => a + b, 0);
  process.stdout.write(
    `${JSON.stringify({ lines, replayMs, peakRssBytes: sampler.peaks().rssBytes, events: result.lane.events.length, ok: result.ok, firstDivergence: result.divergences[0]?.message ?? null })}\n`,
  );
}

const dir = process.argv[2];
if (dir === undefined) {
  process.stderr.write("usage: replay-worker.js <recording dir>\n");
  process.exitCode = 2;
} else {
  await main(dir);
}
