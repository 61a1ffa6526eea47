#!/usr/bin/env node
/**
 * Entry point of the fixture ACP agent: `node fixture-agent/main.js --script <file.json>` (or
 * `--script-json '<json>'`). With `--list-models` it is a model CLI's list command instead: it
 * prints the script's `modelList` and exits, without reading stdin.
 *
 * Speaks ACP (NDJSON JSON-RPC on stdio) as scripted by the file (see script.ts). When
 * `ACP_FIXTURE_LOG` names a file, every received stdin line is appended to it, so a test can
 * assert exactly what the bridge sent. Exits 0 when stdin closes, 2 on a bad script or flags.
 */
import { appendFileSync, existsSync, watch } from "node:fs";
import { dirname } from "node:path";
import { createInterface } from "node:readline";
import { createFixtureAgent } from "./agent.js";
import { callMcpTool } from "./mcp-client.js";
import { parseFixtureScript, readFixtureScript, type FixtureScript } from "./script.js";

/** Reads the script from `--script <file.json>` or `--script-json '<json>'` (self-contained launch specs). */
function loadScript(argv: string[]): FixtureScript {
  const inline = argv.indexOf("--script-json");
  if (inline !== -1) {
    const text = argv[inline + 1];
    if (text === undefined) throw new Error("--script-json needs a JSON value");
    return parseFixtureScript(JSON.parse(text) as unknown, "--script-json");
  }
  const index = argv.indexOf("--script");
  const value = index === -1 ? undefined : argv[index + 1];
  if (!value) throw new Error("usage: fixture-agent --script <file.json> | --script-json '<json>'");
  return readFixtureScript(value);
}

/** `--list-models`: the script's `modelList` stdout lines, its `echoEnv` lines and stderr lines (once `afterFile` exists), then its exit code. */
function printModelList(script: FixtureScript): void {
  const { stdout, stderr, exitCode, afterFile, echoEnv } = script.modelList;
  if (afterFile !== undefined && !existsSync(afterFile)) {
    // Waits for the file's creation, an event of the test (watched, no timer); the bridge's timeout
    // bounds a wait that never ends. Checked again once watching, for a file made in between.
    let printed = false;
    const onChange = (): void => {
      if (printed || !existsSync(afterFile)) return;
      printed = true;
      watcher.close();
      printModelList(script);
    };
    const watcher = watch(dirname(afterFile), onChange);
    onChange();
    return;
  }
  process.stderr.write(stderr.map((line) => `${line}\n`).join(""));
  const envLines = echoEnv.map((name) => `${name} - ${process.env[name] ?? "(unset)"}`);
  process.stdout.write([...stdout, ...envLines].map((line) => `${line}\n`).join(""));
  // Nothing else keeps the process alive: it exits once both streams are flushed.
  process.exitCode = exitCode;
}

function main(): void {
  let script: FixtureScript;
  try {
    script = loadScript(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`fixture agent: ${(error as Error).message}\n`);
    process.exit(2);
  }
  if (process.argv.includes("--list-models")) return printModelList(script);
  const log = process.env.ACP_FIXTURE_LOG;
  for (const line of script.stderrAtStart) process.stderr.write(`${line}\n`);
  const agent = createFixtureAgent(script, {
    write: (line) => void process.stdout.write(`${line}\n`),
    writeStderr: (text) => void process.stderr.write(text),
    exit: (code) => process.exit(code),
    env: process.env,
    callMcpTool,
  });
  const input = createInterface({ input: process.stdin, crlfDelay: Infinity });
  input.on("line", (line) => {
    if (log) appendFileSync(log, `${line}\n`);
    agent.handleLine(line);
  });
  input.on("close", () => process.exit(0));
  process.on("SIGTERM", () => process.exit(0));
}

main();
