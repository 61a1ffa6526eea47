/**
 * The in-process relay fenced (issue 40 build point 3): the bootstrap serving a replay's agent
 * sessions inside the bridge process (stack/bridge-kit/bootstrap-relay-spawn.ts) is the default
 * stand-in, and it must change no verdict. The whole committed matrix and the shared acp-cursor
 * cells are checked three ways — served in-process, through a perl relay process per agent
 * session, and through a Node replay child per session (`--agent-process`) — beside busy
 * processes on the cores, and the three JSON reports must be identical apart from times.
 *
 * Not in `npm test`: three checks of the whole matrix; `.ci/run` runs it with `npm run test:ci`.
 * Nothing here is timed: the per-test budget only bounds a hang.
 */
import { createTwoFilesPatch } from "diff";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli/run-cli.js";
import { busyCores, envCount, timeless } from "./soak.js";

const BUSY = envCount("PARITY_SOAK_BUSY", 2);
const KINDS = ["in-process", "relay", "node"] as const;
const GATES = [
  { name: "committed", argv: [] as string[] },
  { name: "shared", argv: ["--recordings", "../shared/recordings", "--provider", "acp-cursor"] },
];

describe(`the agent stand-ins give one report: in-process, perl relay and Node child, ${BUSY} busy processes`, () => {
  it("every committed and shared cell gets the same verdict and the same report through each stand-in", async () => {
    const load = busyCores(BUSY);
    const reports = new Map<string, string>();
    try {
      for (const gate of GATES) {
        for (const kind of KINDS) {
          const run = await runCli(["check", "--reporter", "json", "--agent-process", kind, ...gate.argv], { ci: true });
          expect(run.err, `${gate.name} through ${kind}`).not.toMatch(/^parity:/m);
          expect(run.code, `${gate.name} through ${kind}: ${run.err}`).toBe(0);
          reports.set(`${gate.name} ${kind}`, timeless(run.out));
        }
      }
    } finally {
      await load.stop();
    }
    for (const gate of GATES) {
      const base = reports.get(`${gate.name} in-process`)!;
      // The report names every cell: an empty selection would prove nothing.
      expect((JSON.parse(base) as { cells: unknown[] }).cells.length).toBeGreaterThan(gate.name === "shared" ? 7 : 100);
      for (const kind of KINDS.slice(1)) {
        const other = reports.get(`${gate.name} ${kind}`)!;
        expect(other === base, createTwoFilesPatch(`${gate.name} in-process`, `${gate.name} ${kind}`, base, other, "", "", { context: 2 })).toBe(true);
      }
    }
  }, 1_800_000);
});
