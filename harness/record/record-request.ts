/**
 * What `parity record` of one cell is asked (see record-cell.ts), what it returns, and the two
 * ways it ends without writing anything.
 */
import { RECORD_STEP_TIMEOUT_MS } from "../defaults.js";
import { EXIT_CODES, ParityError } from "../errors.js";
import type { BridgeFamily } from "../families/index.js";
import type { Manifest } from "../recording/manifest.js";
import type { CellStep } from "../runtime/cell-driver.js";
import type { NetworkMode } from "./network.js";

/** Default wait for one answer or event of the cell script, in ms (divergence detection only; harness/defaults.ts). */
export { RECORD_STEP_TIMEOUT_MS };

/** What {@link recordCell} needs. */
export interface RecordCellRequest {
  providerId: string;
  cell: string;
  /** Called once the request is checked (provider, cell and network known good), as the live run begins: where a caller starts its progress. */
  onStart?: () => void;
  /** Directory of cell definitions (`cells/`). */
  cellsRoot: string;
  /** Recordings root; the recording goes to `<outRoot>/<provider>/<cell>/`. */
  outRoot: string;
  /** Oracles root; the oracle goes to `<lanesRoot>/<provider>/<cell>.json`. */
  lanesRoot: string;
  /** User `--redact` patterns. */
  redact: RegExp[];
  /** Clock in ms (the script's assembler). */
  now: () => number;
  /** Per-step wait, in ms; default {@link RECORD_STEP_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Aborting (SIGINT) stops the run, cleans up and rejects with {@link RecordInterruptedError}. */
  signal?: AbortSignal;
  /** Progress lines (already newline-terminated). */
  log?: (text: string) => void;
  /** Called with every chunk of the bridge's stderr. */
  onStderr?: (text: string) => void;
  /**
   * Called before each script step is sent, with the run's temp root and the bridge pid (tests
   * inspect the live processes there, e.g. which addresses they listen on).
   */
  onStep?: (index: number, step: CellStep, run: { root: string; bridgePid: number | undefined }) => void;
  /** Where the run's temp root is made; default the OS temp dir. */
  tempParent?: string;
  /**
   * Keep the run's temp root (workspace, isolated HOME and its config files, the bridge's raw
   * lanes, the agent's own logs) instead of removing it, success or failure, and call this with
   * its absolute path once the run's processes are stopped (`record --keep-temp`, issue 24).
   */
  onKeptTemp?: (root: string) => void;
  /** The home directory to redact; default the OS home. */
  home?: string;
  /**
   * A `customAgents` JSON file (spec 30 §2.2): `providerId` may then name one of its agents
   * (`acp-<slug>`), recorded through the bridge of the family its entry names (ACP by default)
   * with the file's launch spec.
   */
  customAgentsFile?: string;
  /**
   * How an agent that takes the model endpoint is kept on loopback (network.ts): `auto`
   * (default) a fresh network namespace when this machine can make one, else watching its
   * sockets; `netns` or `watch` only that (`netns` where impossible: UsageError).
   */
  network?: NetworkMode;
  /**
   * Directory of the real agents' install the provider runs (`<dir>/node_modules/…`); default
   * the project's pinned `agents/` (`record --agent-version`: its cache of that version).
   */
  agentsDir?: string;
  /**
   * The bridge families the provider is looked up in (harness/families); default the shipped
   * ones. A caller's own family records through the same flow.
   */
  families?: readonly BridgeFamily[];
}

/** What a successful {@link recordCell} wrote. */
export interface RecordCellResult {
  dir: string;
  oracleFile: string;
  manifest: Manifest;
  /** Thread events of the recorded lane (after the host grammar). */
  events: number;
  unhandled: number;
  grammarDrops: number;
}

/** The run was interrupted (SIGINT); everything was cleaned up and nothing written. */
export class RecordInterruptedError extends ParityError {
  constructor() {
    super("E_INTERRUPTED", "interrupted: the agent and bridge were stopped, the temp directory removed, nothing written", EXIT_CODES.interrupted);
  }
}

/** The cell did not go as scripted (an unanswered approval, an unused model response, …); nothing written. */
export class CellDivergedError extends ParityError {
  constructor(cell: string, problems: readonly string[]) {
    super("E_DIVERGED", `cell ${cell} did not go as scripted, nothing written: ${problems.join("; ")}`, EXIT_CODES.parityFailure);
  }
}
