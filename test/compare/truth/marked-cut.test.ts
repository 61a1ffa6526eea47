import { describe, expect, test } from "vitest";
import { isMarkedCut } from "../../../harness/compare/truth/output.js";
import { trimMarker, TRIM_KEEP_HEAD, TRIM_KEEP_TAIL } from "../../../harness/recording/redact.js";

// A recording's redaction cuts a long string once, with a mark (harness/cli/record-cut.ts): the
// judge takes that marked cut for what it is, and nothing else.
describe("isMarkedCut", () => {
  const printed = Array.from({ length: 3000 }, (_, i) => `${i + 1}\n`).join("");
  const cut = `${printed.slice(0, TRIM_KEEP_HEAD)}${trimMarker(printed.length - TRIM_KEEP_HEAD - TRIM_KEEP_TAIL)}${printed.slice(-TRIM_KEEP_TAIL)}`;

  test("the recorder's cut of the whole output, mark naming exactly what it took", () => {
    expect(isMarkedCut(cut, printed, "")).toBe(true);
  });

  test("a mark that counts wrong, a head or tail that differs, or no mark at all is not", () => {
    expect(
      isMarkedCut(
        cut.replace(/\d+ chars/, (m) => `${Number.parseInt(m, 10) + 1} chars`),
        printed,
        "",
      ),
    ).toBe(false);
    expect(isMarkedCut(`x${cut.slice(1)}`, printed, "")).toBe(false);
    expect(isMarkedCut(cut.slice(0, -1), printed, "")).toBe(false);
    expect(isMarkedCut(printed.slice(0, 100), printed, "")).toBe(false);
  });

  test("stdout and stderr in either order", () => {
    expect(isMarkedCut(`${cut}`, printed.slice(0, -2000), printed.slice(-2000))).toBe(true);
  });
});
