import * as z from "zod";

/**
 * Frames of the private channel between the replay scheduler and a replay child
 * (docs/design/00-product.md flow 2; spec 10 §5.2 with the file cursor replaced by a socket). One JSON
 * object per line, in both directions, over a Unix domain socket whose path is on the
 * child's argv. The child only forwards: every ordering decision is the scheduler's.
 *
 * Child → scheduler:
 * - `hello {pid}` once, on connect (the pid lets the scheduler make sure it is gone);
 * - `line {line}` for every line the bridge wrote to the child's stdin (`bridge→provider`);
 * - `eof` when the bridge closed the child's stdin;
 * - `too-long {bytes}` when the bridge wrote a stdin line over the child's bound (`--max-line-bytes`):
 *   the line is dropped unread, `bytes` of it were seen.
 *
 * Scheduler → child:
 * - `line {line}`: write this line to stdout (`provider→bridge`);
 * - `end`: exit now (code 0).
 */
export const ChildToSchedulerFrameSchema = z.discriminatedUnion("t", [
  z.object({ t: z.literal("hello"), pid: z.number().int() }),
  z.object({ t: z.literal("line"), line: z.string() }),
  z.object({ t: z.literal("eof") }),
  z.object({ t: z.literal("too-long"), bytes: z.number().int() }),
]);

/** A frame a replay child sends (see {@link ChildToSchedulerFrameSchema}). */
export type ChildToSchedulerFrame = z.infer<typeof ChildToSchedulerFrameSchema>;

/** Frames the scheduler sends to a replay child (see {@link ChildToSchedulerFrameSchema}). */
export const SchedulerToChildFrameSchema = z.discriminatedUnion("t", [z.object({ t: z.literal("line"), line: z.string() }), z.object({ t: z.literal("end") })]);

/** A frame the scheduler sends (see {@link SchedulerToChildFrameSchema}). */
export type SchedulerToChildFrame = z.infer<typeof SchedulerToChildFrameSchema>;

export { CONNECT_FLAG, MAX_LINE_FLAG, encodeFrame } from "./child-wire.js";
