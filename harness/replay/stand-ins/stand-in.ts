/**
 * The agent stand-ins behind one interface (docs/design/00-product.md flow 2; spec 10 §5.2): what a bridge
 * spawns in place of its real agent during a replay, and the channel its lines come back on.
 * Two implementations: the perl relay (`relay-channel.ts`, one `perl` process per agent session)
 * and the Node replay child (`replay-child.ts` over `child-channel.ts`). A replay chooses one,
 * once, with {@link chooseStandIn}; the walk sees only {@link ChildChannel} events.
 */
import { childArgs, openChildChannel, type ChildChannel, type ChildChannelEvent } from "./child-channel.js";
import { findRelayTools, openRelayChannel } from "./relay-channel.js";

/** What a replay asks for: the relay where `perl` exists (default), or the Node replay child. */
export type StandInKind = "relay" | "node";

/** An open stand-in: its channel, and the command line the bridge's agent launch is pointed at. */
export interface OpenStandIn {
  channel: ChildChannel;
  command: string;
  args: string[];
}

/** An agent stand-in, not yet opened. */
export interface AgentStandIn {
  readonly kind: StandInKind;
  /**
   * Opens its channel in `dir` (a private directory with a short path: Unix socket paths are
   * limited to about 100 bytes); each stand-in process's hello, lines, end and close become
   * events passed to `onEvent` synchronously, in arrival order. A line over `maxLineBytes`
   * (default 64 MiB, socket-lines.ts) is a `child-line-too-long` event and stops its stand-in.
   */
  open(dir: string, onEvent: (event: ChildChannelEvent) => void, maxLineBytes?: number): Promise<OpenStandIn>;
}

/**
 * The stand-in a replay uses: the relay unless `wanted` is `node` or `perl` is missing from
 * `path` (or the platform has no Unix sockets), else the Node replay child `childModule` (the
 * compiled `replay-child.js` or its bundle, harness/replay/bridge/repo-paths.ts).
 */
export function chooseStandIn(wanted: StandInKind | undefined, childModule: string, path?: string): AgentStandIn {
  const tools = wanted === "node" ? undefined : findRelayTools(path);
  if (tools) {
    return {
      kind: "relay",
      async open(dir, onEvent, maxLineBytes) {
        const channel = await openRelayChannel(dir, tools, onEvent, maxLineBytes);
        return { channel, command: channel.command, args: channel.args };
      },
    };
  }
  return {
    kind: "node",
    async open(dir, onEvent, maxLineBytes) {
      const channel = await openChildChannel(dir, onEvent, maxLineBytes);
      return { channel, command: process.execPath, args: [childModule, ...childArgs(channel, maxLineBytes)] };
    },
  };
}
