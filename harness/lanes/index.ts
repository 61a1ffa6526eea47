/**
 * Thread lanes (docs/design/00-product.md, harness/lanes): building, normalizing and serializing.
 */
export {
  assembleBridgeLines,
  buildThreadLane,
  createThreadLaneBuilder,
  streamThreadLane,
  THREAD_LANE_ID_PREFIX,
  THREAD_LANE_TEXT_DELTA_FLUSH_MS,
  type BuildThreadLaneOptions,
  type GrammarDrop,
  type InvalidDeltaNotice,
  type ThreadLane,
  type ThreadLaneBuilder,
  type ThreadLaneBuilderOptions,
  type ThreadLaneResult,
  type ThreadLaneStream,
} from "./thread-lane.js";
export {
  EVENT_ID_FIELDS,
  normalizeThreadLane,
  createLaneNormalizer,
  ROW_ID_FIELDS,
  serializeThreadLane,
  TIME_FIELDS,
  type NormalizeOptions,
} from "./normalize.js";
