/**
 * Shared reading of the committed fixture-agent cells (recordings/<provider>/<cell>/ and
 * lanes/<provider>/<cell>.json) for the fixture-cells tests.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { FIXTURE_AGENT_PROFILES } from "../../harness/families/acp/fixture-agents.js";
import { listRecordings, readRecording, type Direction, type Recording } from "../../harness/recording/index.js";
import { repoRoot } from "../cli/run-cli.js";

/** The providers whose committed cells are fixture-agent recordings. */
export const FIXTURE_PROVIDERS = Object.keys(FIXTURE_AGENT_PROFILES).sort();

/** A JSON-RPC message of a lane (loosely typed: tests look at fields). */
export type Message = { id?: number | string; method?: string; params?: any; result?: any; error?: any };

/** One normalized oracle event (loosely typed). */
export type OracleEvent = Record<string, any> & { type: string };

/** A committed fixture cell: its recording and its oracle. */
export interface FixtureCell {
  provider: string;
  cell: string;
  dir: string;
  recording: Recording;
  oracleFile: string;
  oracle: OracleEvent[];
}

/** Every committed recording of the fixture providers, with its oracle (an absent oracle is an empty list + the path). */
export async function committedFixtureCells(): Promise<FixtureCell[]> {
  const found = (await listRecordings([path.join(repoRoot, "recordings")])).filter((r) => FIXTURE_PROVIDERS.includes(r.provider));
  const cells: FixtureCell[] = [];
  for (const { provider, cell, dir } of found) {
    const oracleFile = path.join(repoRoot, "lanes", provider, `${cell}.json`);
    const oracle = JSON.parse(await readFile(oracleFile, "utf8").catch(() => "[]")) as OracleEvent[];
    cells.push({ provider, cell, dir, recording: await readRecording(dir), oracleFile, oracle });
  }
  return cells;
}

/** One committed fixture cell; throws when it is missing. */
export async function fixtureCell(provider: string, cell: string): Promise<FixtureCell> {
  const found = (await committedFixtureCells()).find((c) => c.provider === provider && c.cell === cell);
  if (!found) throw new Error(`no committed fixture cell ${provider}/${cell}`);
  return found;
}

/** The parsed JSON-RPC messages of one lane of a recording. */
export function laneMessages(recording: Recording, direction: Direction): Message[] {
  return recording.lanes[direction].map((entry) => JSON.parse(entry.line) as Message);
}

/** The `params.update` of every `session/update` the agent sent. */
export function agentUpdates(recording: Recording): Record<string, any>[] {
  return laneMessages(recording, "provider→bridge")
    .filter((m) => m.method === "session/update")
    .map((m) => m.params.update as Record<string, any>);
}

/** The items of every `item/completed` event of the oracle with this item type, in order. */
export function completedItems(oracle: OracleEvent[], itemType: string): Record<string, any>[] {
  return oracle.filter((e) => e.type === "item/completed" && e.item?.type === itemType).map((e) => e.item as Record<string, any>);
}
