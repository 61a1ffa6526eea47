import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { nonEmptyString } from "../../stack/protocol/json-value.js";
import { escapeRegExp, shellQuote } from "../../stack/protocol/text.js";

const WORDS = ["plain", "lanes/echo/turn.json", "it's", "a b", "$HOME", "recordings/echo/turn/bridge→runtime.current.ndjson", "*", "--path=/*/delta", "`x`", "'", ""];

describe("the shared text helpers", () => {
  it("shellQuote: a POSIX shell reads every quoted word back as the word itself", () => {
    const printed = execFileSync("sh", ["-c", `printf '%s\\n' ${WORDS.map(shellQuote).join(" ")}`], { encoding: "utf8" });
    expect(printed.split("\n").slice(0, -1)).toEqual(WORDS);
  });

  it("shellQuote leaves safe words bare and quotes the rest", () => {
    expect(shellQuote("lanes/echo/turn.json")).toBe("lanes/echo/turn.json");
    expect(shellQuote("a b")).toBe("'a b'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
  });

  it("escapeRegExp: the pattern matches the text literally, metacharacters included", () => {
    for (const text of ["1.25", "a+b*(c)?", "[x]{2}|^$", "back\\slash", "Wall time: 0.50 seconds"]) {
      expect(new RegExp(`^${escapeRegExp(text)}$`).test(text)).toBe(true);
    }
    expect(new RegExp(escapeRegExp("1.25")).test("1x25")).toBe(false);
  });

  it("nonEmptyString keeps only non-empty strings", () => {
    expect(nonEmptyString("x")).toBe("x");
    expect([nonEmptyString(""), nonEmptyString(3), nonEmptyString(undefined), nonEmptyString(null)]).toEqual([undefined, undefined, undefined, undefined]);
  });
});
