import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MANIFEST_VERSION, parseManifest } from "../../harness/recording/manifest.js";
import { importedFrom } from "../../harness/record/import-record-dir.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const committedText = readFileSync(path.join(repoRoot, "recordings", "echo", "turn", "manifest.json"), "utf8");
const committed = JSON.parse(committedText) as Record<string, unknown>;
const text = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

// A manifest's version (recording/manifest.ts MANIFEST_VERSION): absent is version 1, every
// manifest written before `source`; version 2 adds `source`, which `parity review` reads to know an import.
describe("manifest versions", () => {
  it("a committed manifest has no version and reads as version 1; one with a source reads as version 2", () => {
    expect(committed.manifestVersion).toBeUndefined();
    expect(parseManifest(committedText, "manifest.json").manifestVersion).toBeUndefined();
    const v2 = parseManifest(text({ manifestVersion: 2, ...committed, source: { kind: "import", folder: "rec/echo/thr_1" } }), "manifest.json");
    expect(v2.source).toEqual({ kind: "import", folder: "rec/echo/thr_1" });
    expect(importedFrom(v2)).toBe("rec/echo/thr_1");
    expect(MANIFEST_VERSION).toBe(2);
  });

  it("a newer version is refused by its version, before its fields (one it does not know is no typo)", () => {
    expect(() => parseManifest(text({ manifestVersion: 3, ...committed, origin: { anything: 1 } }), "recordings/echo/turn/manifest.json")).toThrow(
      "recordings/echo/turn/manifest.json: manifest version 3 is newer than this bridge-parity reads (versions 1 to 2): upgrade bridge-parity to read it",
    );
  });

  it("a source without version 2, or of a kind it does not know, is refused and named", () => {
    expect(() => parseManifest(text({ ...committed, source: { kind: "import", folder: "rec/echo/thr_1" } }), "manifest.json")).toThrow(/source is a version-2 field/);
    expect(() => parseManifest(text({ manifestVersion: 2, ...committed, source: { kind: "upload", folder: "x" } }), "manifest.json")).toThrow(/source/);
  });

  it("importedFrom: the source when there is one (the note is prose); a version-1 import's note as written then; else none", () => {
    const note = "Imported by parity import from rec/echo/thr_old; no cell script: the recording alone replays it.";
    expect(importedFrom({ note })).toBe("rec/echo/thr_old");
    expect(importedFrom({ note: "Incident 42.", source: { kind: "import", folder: "rec/echo/thr_new" } })).toBe("rec/echo/thr_new");
    expect(importedFrom({ note: String(committed.note) })).toBeUndefined();
  });
});
