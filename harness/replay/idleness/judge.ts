/**
 * Idleness behind one interface (docs/design/00-product.md, Determinism; spec 10 §5: divergence is judged
 * only when the bridge is idle). The walk (walk-settle.ts) asks an {@link IdlenessJudge}, chosen
 * once per replay ({@link chooseIdlenessJudge} in choose.ts), how settled the bridge and its
 * agents are; how it knows is the judge's business.
 */

/**
 * How settled the bridge and its agents are:
 * - `busy`: something in the tree still works (or the judge cannot tell yet);
 * - `blocked`: everything sleeps, but the bridge has a timer due within the horizon: it has
 *   consumed its input and will act on its own soon;
 * - `idle`: nothing will happen until someone writes to the tree.
 */
export type Settlement = "busy" | "blocked" | "idle";

/** What a judge may use of the walk: this process's own input, handled in arrival order. */
export interface LookContext {
  /** Handles every live event already queued; true when there was one. */
  drain(): Promise<boolean>;
  /** Waits up to `ms` (on the replay's injected scheduler) for one live event and handles it; true when one came. */
  waitForEvent(ms: number): Promise<boolean>;
  /**
   * True while this process still holds input for the tree, or has not read what a replay child
   * announced (ScheduleIo.writesPending): the tree's next move depends on this process.
   */
  pending(): boolean;
  /** Milliseconds left before the walk's wall-clock ceiling (> 0). */
  remainingMs: number;
  /** Receives one line when the judgement changes (`--verbose`). */
  trace?: (text: string) => void;
}

/** One way of telling when the bridge is idle. */
export interface IdlenessJudge {
  /** `proc` (threads seen in `/proc`) or `quiet` (a window of silence where nothing better is known). */
  readonly name: "proc" | "quiet";
  /**
   * One judgement: `event` when a live event arrived meanwhile (handled through the context),
   * else how settled the tree is. Never judges by how long anything took, except the `quiet`
   * judge, which exists for platforms that offer nothing else.
   */
  look(context: LookContext): Promise<Settlement | "event">;
  /**
   * How long to wait for a live event before the next look, after `attempt` unsettled looks in a
   * row (ms; 0: look again at once). It only spaces the looks; nothing is judged by it.
   */
  pauseMs(attempt: number): number;
  /** Releases what the judge holds (descriptors); idempotent. */
  close(): void;
}
