/**
 * Recordings (docs/design/00-product.md, Layout: harness/recording; spec 10 §4): lane entries, the
 * manifest, the validating reader with its `(run, seq)` merge, cell selection and atomic writes.
 */
export {
  CURRENT_BRIDGE_LANE_FILE,
  DirectionSchema,
  LANE_DIRECTIONS,
  LaneEntrySchema,
  MAX_ERROR_EXCERPT_CHARS,
  compareLaneEntries,
  excerpt,
  laneFileName,
  parseLaneEntry,
  type Direction,
  type LaneEntry,
} from "./lane-entry.js";
export { DEFAULT_MAX_LINE_BYTES, readLines, type NumberedLine, type ReadLinesOptions } from "./line-reader.js";
export { MANIFEST_FILE, ManifestSchema, parseManifest, readManifest, type Manifest } from "./manifest.js";
export {
  DEFAULT_MAX_LANE_FILE_BYTES,
  listRecordings,
  readLaneEntries,
  readRecording,
  type NumberedLaneEntry,
  type ReadRecordingOptions,
  type Recording,
  type RecordingLocation,
  type ValidatedRecording,
  mergeLaneStreams,
  readMergedEntries,
  validateRecording,
} from "./reader.js";
export { resolveRecordingRoots, selectRecordings, type CellFilter } from "./select.js";
export { writeFileAtomic } from "./atomic-write.js";
