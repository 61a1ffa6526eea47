/**
 * `parity record`'s flow (docs/design/00-product.md flow 1; spec 10 §4): run one cell's runtime script
 * against a real agent through its bridge with record mode on, in a fresh temp directory;
 * redact the thread's lanes; sweep for survivors (any → exit 3, nothing written); write
 * `manifest.json`; move the recording atomically into `<out>/<provider>/<cell>/`; write its
 * oracle `<lanes>/<provider>/<cell>.json`. An existing recording or oracle is never
 * overwritten. The temp directory, the model endpoint, the bridge and anything still
 * working in the temp directory are cleaned up on success, failure and abort (SIGINT).
 */
import { existsSync } from "node:fs";
import { cp, mkdir, rename, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { InputError, UsageError } from "../errors.js";
import { ensureDir, writeFileAtomic } from "../recording/atomic-write.js";
import { writeOracleVersion } from "../recording/oracle-version.js";
import { recordProviderFor } from "../families/index.js";
import { applyCellVariant, loadCell } from "../runtime/cells.js";
import { socketDirFor, type SocketDir } from "../runtime/unix-socket-path.js";
import { killProcessesWorkingIn } from "./leftovers.js";
import { detectNetworkIsolation } from "./network.js";
import { RecordInterruptedError, type RecordCellRequest, type RecordCellResult } from "./record-request.js";
import { createLiveRecord, runLiveCell, type LiveRecordContext } from "./record-run.js";
import { stageRecording } from "./record-stage.js";

export * from "./record-request.js";
export { SOCKET_WATCH_INTERVAL_MS, withSessionWaits } from "./record-run.js";
export { secretValuesOf } from "./record-stage.js";

/**
 * Makes the run's temp root `<parent>/rec-<8 digits>`: the lowest free number from
 * 00000000 up (an exclusive mkdir, so an existing path, symlink or not, is never used). Not
 * mkdtemp's random letters: agents see paths below it and some count the tokens of what they
 * see (copilot's context usage), so a name that differed from run to run changed their counts
 * between two recordings; the first free number is the same name in every run that is alone.
 * Short, because the CLI already nests it in its session temp dir and agents shorten long paths
 * in what they show (copilot titles a path over 50 characters `...` and its last 47). Redaction
 * reads such a spelling back as the path (recording/abbreviated-path.ts), but only where it keeps
 * enough of the path; a short root leaves less to shorten.
 */
export async function makeRunRoot(parent: string): Promise<string> {
  for (let n = 0; ; n += 1) {
    const root = path.join(parent, `rec-${String(n).padStart(8, "0")}`);
    try {
      await mkdir(root);
      return root;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}

function refuseExisting(destination: string, oracleFile: string, req: RecordCellRequest): void {
  const how = `record under a new cell name instead (copy cells/${req.cell} to cells/${req.cell}-2 and run \`parity record --provider ${req.providerId} --cell ${req.cell}-2\`), or remove it deliberately`;
  if (existsSync(destination)) throw new InputError(`a recording already exists here and is never overwritten; ${how}`, { file: destination });
  if (existsSync(oracleFile)) throw new InputError(`an oracle already exists here and is never overwritten; ${how}`, { file: oracleFile });
}

/** A promise that rejects with {@link RecordInterruptedError} when `signal` aborts; `dispose` stops listening. */
function abortPromise(signal: AbortSignal | undefined): { promise: Promise<never>; dispose(): void } {
  let dispose = () => undefined as void;
  const promise = new Promise<never>((_, reject) => {
    if (!signal) return;
    if (signal.aborted) return reject(new RecordInterruptedError());
    const onAbort = () => reject(new RecordInterruptedError());
    signal.addEventListener("abort", onAbort, { once: true });
    dispose = () => signal.removeEventListener("abort", onAbort);
  });
  promise.catch(() => undefined);
  return { promise, dispose };
}

/**
 * Records one (provider, cell) pair live (see the module doc).
 *
 * @throws InputError (exit 2) when the recording or oracle exists, or the cell is invalid;
 *   UsageError for an unknown provider or cell; RedactionSurvivorError (exit 3) when a
 *   secret survives redaction; CellDivergedError / bridge errors (exit 1) when the run does
 *   not go as scripted; RecordInterruptedError when `signal` aborts. Nothing is written in
 *   any of these cases.
 */
export async function recordCell(req: RecordCellRequest): Promise<RecordCellResult> {
  const log = req.log ?? (() => undefined);
  const destination = path.resolve(req.outRoot, req.providerId, req.cell);
  const oracleFile = path.resolve(req.lanesRoot, req.providerId, `${req.cell}.json`);
  refuseExisting(destination, oracleFile, req);
  const provider = await recordProviderFor(req.providerId, req.customAgentsFile, req.families, req.agentsDir !== undefined ? { agentsDir: req.agentsDir } : {});
  const loaded = await loadCell(req.cellsRoot, req.cell, req.providerId);
  const profileVariant = provider.cellVariant?.(req.cell);
  const cell = profileVariant === undefined ? loaded : applyCellVariant(loaded, profileVariant, `${req.customAgentsFile ?? req.providerId}: record.cells.${req.cell}`);
  if (provider.takesModelEndpoint && !cell.definition.model) throw new UsageError(`cell ${req.cell} has no model script; ${req.providerId} needs one (${cell.file}: model)`);

  const isolation = provider.takesModelEndpoint ? detectNetworkIsolation(req.network ?? "auto") : undefined;
  if (req.network === "netns" && isolation?.kind !== "netns") {
    throw new UsageError(`--network netns: ${isolation ? isolation.why : `${req.providerId} takes no model endpoint and is not isolated`}`);
  }

  // Every check of the request passed: only now does the live run begin (progress starts here, issue 42).
  req.onStart?.();
  const root = await makeRunRoot(req.tempParent ?? os.tmpdir());
  // A long TMPDIR leaves no room for `<root>/model.sock` (unix-socket-path.ts): the socket then gets a short private directory.
  let sockets: SocketDir;
  try {
    sockets = await socketDirFor(root, "model.sock");
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
  const ctx: LiveRecordContext = {
    req,
    log,
    provider,
    cell,
    isolation,
    root,
    dirs: { root, workspace: path.join(root, "ws"), home: path.join(root, "home"), tmp: path.join(root, "tmp") },
    recordDir: path.join(root, "rec"),
    modelSocket: path.join(sockets.dir, "model.sock"),
    abort: abortPromise(req.signal),
  };
  const live = createLiveRecord(ctx);
  try {
    const { prepared, run } = await runLiveCell(ctx, live);
    const staged = await stageRecording(ctx, prepared, run, live.model?.origin);
    await publish(req, staged.stage, destination, oracleFile, staged.laneText, staged.recording.manifest.cliVersion);
    log(`wrote ${destination} and ${oracleFile}\n`);
    return {
      dir: destination,
      oracleFile,
      manifest: staged.recording.manifest,
      events: staged.built.events.length,
      unhandled: staged.built.unhandled,
      grammarDrops: staged.built.grammarDrops.length,
    };
  } finally {
    live.stopWatching();
    ctx.abort.dispose();
    if (live.bridge) await live.bridge.close();
    await live.model?.close();
    killProcessesWorkingIn(root);
    if (sockets.owned) await rm(sockets.dir, { recursive: true, force: true });
    if (req.onKeptTemp !== undefined) req.onKeptTemp(root);
    else await rm(root, { recursive: true, force: true });
  }
}

/**
 * Moves the staged recording to `destination` (staged beside it: one filesystem, atomic rename)
 * and writes the oracle, then its version sidecar (recording/oracle-version.ts): `cliVersion`.
 */
async function publish(req: RecordCellRequest, stage: string, destination: string, oracleFile: string, laneText: string, cliVersion: string): Promise<void> {
  refuseExisting(destination, oracleFile, req);
  const staging = path.join(path.dirname(destination), `.${req.cell}.staging-${process.pid}`);
  // Not Node's recursive mkdir: it never returns under /proc (see atomic-write.ts).
  await ensureDir(path.dirname(destination));
  await rm(staging, { recursive: true, force: true });
  try {
    await cp(stage, staging, { recursive: true });
    await rename(staging, destination);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  await writeFileAtomic(oracleFile, laneText);
  await writeOracleVersion(oracleFile, cliVersion);
}
