/**
 * A line channel to one bridge instance (spec 10 §1.1 Envelope: line-delimited JSON-RPC 2.0
 * on stdio). The child-process form wraps a bridge process's stdin/stdout; the in-process
 * form wraps a bridge module loaded in this process. Everything above (the JSON-RPC
 * client, conformance, the script driver) sees only this interface.
 */
export interface BridgeChannel {
  /** Human-readable name used in every error, e.g. `echo (pid 4242)`. */
  readonly name: string;
  /** Delivers one line (no terminator) to the bridge. Ignored once the channel closed. */
  send(line: string): void;
  /**
   * Subscribes to every line the bridge writes (terminator and a trailing `\r` stripped),
   * protocol or not, in order. Returns the unsubscribe function.
   */
  onLine(listener: (line: string) => void): () => void;
  /**
   * Subscribes to the channel's end; `reason` says why (exit code, signal, close()).
   * A listener added after the end is called at once. Returns the unsubscribe function.
   */
  onClose(listener: (reason: string) => void): () => void;
  /** True once the channel has ended. */
  readonly closed: boolean;
  /**
   * Ends the bridge gracefully (stdin closed, `onClose` hook run) and resolves when it
   * is gone. Idempotent.
   */
  close(): Promise<void>;
  /** Ends the bridge at once (SIGKILL for a process). Idempotent. */
  kill(): void;
}

/**
 * A small multicast list of listeners; the building block of the channels' `onLine` and
 * `onClose`. A listener that throws does not stop the others; the first error is rethrown
 * after all ran, so a bug in a listener is not swallowed.
 */
export interface Listeners<T> {
  add(listener: (value: T) => void): () => void;
  emit(value: T): void;
  readonly size: number;
}

/** Creates an empty {@link Listeners} list. */
export function createListeners<T>(): Listeners<T> {
  const set = new Set<(value: T) => void>();
  return {
    add(listener) {
      set.add(listener);
      return () => void set.delete(listener);
    },
    emit(value) {
      let failure: { error: unknown } | undefined;
      for (const listener of [...set]) {
        try {
          listener(value);
        } catch (error) {
          failure ??= { error };
        }
      }
      if (failure) throw failure.error;
    },
    get size() {
      return set.size;
    },
  };
}

/**
 * The end of a channel, shared by the process and in-process forms: whether it has ended, why,
 * and the `onClose` subscription of {@link BridgeChannel} (a listener added after the end is
 * called at once with the reason).
 */
export interface ChannelEnd {
  /** True once {@link ChannelEnd.end} ran. */
  readonly closed: boolean;
  /** {@link BridgeChannel.onClose}: subscribes to the end; returns the unsubscribe function. */
  onClose(listener: (reason: string) => void): () => void;
  /**
   * Ends the channel with `reason` and tells every close listener; ignored once ended. Rethrows
   * the first listener error after all ran (see {@link Listeners}).
   */
  end(reason: string): void;
}

/** Creates a {@link ChannelEnd} that has not ended. */
export function createChannelEnd(): ChannelEnd {
  const listeners = createListeners<string>();
  let reason: string | undefined;
  return {
    get closed() {
      return reason !== undefined;
    },
    onClose(listener) {
      if (reason !== undefined) {
        listener(reason);
        return () => undefined;
      }
      return listeners.add(listener);
    },
    end(why) {
      if (reason !== undefined) return;
      reason = why;
      listeners.emit(why);
    },
  };
}
