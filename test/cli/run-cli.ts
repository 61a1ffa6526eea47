import path from "node:path";
import { repoRoot } from "../helpers/run-cli.js";

export { repoRoot, runCli, type CliResult } from "../helpers/run-cli.js";

/** The shared real recordings root. */
export const sharedRecordings = path.resolve(repoRoot, "../shared/recordings");
/** The reference implementation's normalized lanes of the acp-cursor thread cells. */
export const referenceLanes = path.resolve(repoRoot, "../shared/reference-lanes/acp-cursor");
