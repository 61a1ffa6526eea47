#!/usr/bin/env node
/**
 * Entry point of the fixture Claude Code CLI: `node fixture-agent/main.js --script-json '<json>'`
 * (or `--script <file.json>`), plus the CLI's own flags, of which it reads `--session-id` and
 * `--resume` (the session id it reports) and ignores the rest. Speaks stream-json on stdio as
 * scripted (script.ts). Exits when stdin closes (1 after a failed last turn), 2 on a bad script.
 */
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { createFixtureClaude } from "./agent.js";
import { parseFixtureScript, readFixtureScript, type FixtureScript } from "./script.js";

function flag(argv: string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  return at === -1 ? undefined : argv[at + 1];
}

function loadScript(argv: string[]): FixtureScript {
  const inline = flag(argv, "--script-json");
  if (inline !== undefined) return parseFixtureScript(JSON.parse(inline) as unknown, "--script-json");
  const file = flag(argv, "--script");
  if (!file) throw new Error("usage: fixture-agent --script <file.json> | --script-json '<json>' [claude flags]");
  return readFixtureScript(file);
}

function main(): void {
  const argv = process.argv.slice(2);
  let script: FixtureScript;
  try {
    script = loadScript(argv);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(2);
  }
  const sessionId = flag(argv, "--resume") ?? flag(argv, "--session-id") ?? randomUUID();
  const fixture = createFixtureClaude(
    script,
    { sessionId, cwd: process.cwd() },
    {
      write: (line) => process.stdout.write(`${line}\n`),
      exit: (code) => {
        process.exitCode = code;
        process.stdin.destroy();
      },
    },
  );
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => fixture.onLine(line));
  lines.on("close", () => fixture.onEnd());
}

main();
