/**
 * Turns a built thread lane into a parity leg (spec 10 §6.3 steps 1–5 plus the counts compared in
 * flow 3), so the gate feeds `compareParity` the same way for live and recorded lanes.
 */
import { normalizeThreadLane, type ThreadLaneResult } from "../lanes/index.js";
import { grammarDropKeys, type ParityLeg } from "./parity.js";

/** `{events: normalizeThreadLane(lane.events), unhandled, grammarDrops: ["rule:eventType", …]}`. */
export function parityLegFromLane(lane: Pick<ThreadLaneResult, "events" | "unhandled" | "grammarDrops">): ParityLeg {
  return {
    events: normalizeThreadLane(lane.events),
    unhandled: lane.unhandled,
    grammarDrops: grammarDropKeys(lane.grammarDrops),
  };
}
