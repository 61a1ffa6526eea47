/**
 * A bridge family defined only here ("tube": its own bridge module, written to a temp dir, and
 * its own provider id) goes through the same flows as the shipped families — record
 * (`recordCell`), list (`recordProviders`, `knownBridgeNames`), replay and check (`checkCells`
 * with the family's replay hooks) and conform (`resolveBridgeTarget` + `runBridgeConformance`)
 * — by passing the family list, without any flow module naming it (issue 20). The tube bridge
 * serves the echo bridge's behaviour (it launches no agent), so its cells are the echo's cells.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkCells } from "../../harness/check/check-cells.js";
import { runBridgeConformance } from "../../harness/conformance/run.js";
import { echoConformanceSession } from "../../harness/conformance/session.js";
import { spawnOptions } from "../../harness/conformance/target.js";
import { childProcessTransport } from "../../harness/conformance/transport.js";
import { BRIDGE_FAMILIES, knownBridgeNames, recordProviders, resolveBridgeTarget, type BridgeFamily } from "../../harness/families/index.js";
import { baseEnv, isolatedHomeEnv } from "../../harness/families/record-provider.js";
import { recordCell } from "../../harness/record/record-cell.js";
import { selectRecordings } from "../../harness/recording/select.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const work = mkdtempSync(path.join(tmpdir(), "parity-tube-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// The family's bridge: a module of its own outside the repository, exporting a provider bridge.
const bridgeFile = path.join(work, "tube-bridge.mjs");
writeFileSync(bridgeFile, `export { experimental_providerBridge } from ${JSON.stringify(path.join(repoRoot, "dist", "stack", "echo", "bridge.js"))};\n`);

const tubeFamily: BridgeFamily = {
  id: "tube",
  providers: "tube",
  handles: (provider) => provider === "tube",
  modulePath: bridgeFile,
  recordProviders: () => ({
    bridges: {
      tube: {
        id: "tube",
        modulePath: bridgeFile,
        takesModelEndpoint: false,
        async prepare(dirs) {
          return { env: { ...baseEnv(), ...(await isolatedHomeEnv(dirs.home)) }, options: {}, cliVersion: "tube 0.0.1", note: "test family" };
        },
      },
    },
  }),
  conform: {
    name: "tube",
    describe: "the tube test bridge",
    resolve: (options, modulePath) => ({
      modulePath,
      transport: childProcessTransport(spawnOptions(modulePath, options.providerId ?? "tube", options)),
      session: options.session ?? echoConformanceSession(options.cwd),
    }),
  },
};
const families = [...BRIDGE_FAMILIES, tubeFamily];

describe("a family defined only in a test goes through the flows", () => {
  it("is listed by record and conform, and only when given", () => {
    expect(Object.keys(recordProviders(families))).toContain("tube");
    expect(Object.keys(recordProviders())).not.toContain("tube");
    expect(knownBridgeNames(families)).toEqual([...knownBridgeNames(), "tube"]);
    expect(knownBridgeNames()).not.toContain("tube");
  });

  it("records a cell, and the recording replays and checks against its oracle", async () => {
    const out = path.join(work, "recordings");
    const lanes = path.join(work, "lanes");
    // The echo's own variant of the turn cell (cells/turn/providers/echo.json), as a cell of the tube's.
    const cellsRoot = path.join(work, "cells");
    mkdirSync(path.join(cellsRoot, "turn"), { recursive: true });
    cpSync(path.join(repoRoot, "cells", "turn", "providers", "echo.json"), path.join(cellsRoot, "turn", "cell.json"));
    const result = await recordCell({ providerId: "tube", cell: "turn", cellsRoot, outRoot: out, lanesRoot: lanes, redact: [], now: Date.now, families });
    expect(result.manifest.provider).toBe("tube");
    expect(result.events).toBeGreaterThan(0);

    const locations = await selectRecordings([out], {});
    expect(locations.map((l) => `${l.provider}/${l.cell}`)).toEqual(["tube/turn"]);
    const checked = await checkCells({ locations, repoRoot, oraclesForEveryRecording: true, lanesDir: lanes, allowlist: [], jobs: 1, write: "never", replay: { adapters: families } });
    expect(checked.run.cells.map((c) => [c.provider, c.cell, c.status])).toEqual([["tube", "turn", "pass"]]);
  });

  it("conforms by its name", async () => {
    const target = resolveBridgeTarget("tube", { cwd: work }, families);
    expect(target.modulePath).toBe(bridgeFile);
    const report = await runBridgeConformance({ transport: target.transport, session: target.session, timeoutMs: 90_000 });
    expect(report.results.filter((r) => r.status === "fail")).toEqual([]);
  });
});
