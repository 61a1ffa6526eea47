import { assemblerBench } from "./assembler-bench.js";
import type { Bench } from "./bench.js";
import { cliBench } from "./cli-bench.js";
import { replayBench } from "./replay.js";

/** Every benchmark `npm run bench` runs, in order. A new bench is one sibling module plus one entry here. */
export const BENCHES: readonly Bench[] = [cliBench, assemblerBench, replayBench];
