import { initializeBridge, type InitializeBridgeOptions, type InitializedBridge } from "./handshake.js";
import { spawnBridge, type BridgeProcess, type SpawnBridgeOptions } from "./spawn-bridge.js";

/** A bridge process that passed the handshake, with what the handshake told. */
export interface StartedBridge {
  process: BridgeProcess;
  handshake: InitializedBridge;
}

/**
 * Spawns a bridge through the bootstrap and runs the handshake with the grammar gate
 * (spec 02 §3: a bridge whose range does not include 3 is refused at spawn, with a sentence naming it).
 * A refused bridge is not left running: it is closed (SIGKILL after the close grace) before
 * the error is rethrown.
 *
 * @throws BridgeRefusedError (grammar range without 3, a widened declaration, an
 *   unparseable result), BridgeRpcError, BridgeClosedError or BridgeTimeoutError — see
 *   `initializeBridge`.
 */
export async function startBridge(spawn: SpawnBridgeOptions, handshake: InitializeBridgeOptions = {}): Promise<StartedBridge> {
  const process = spawnBridge(spawn);
  try {
    return { process, handshake: await initializeBridge(process, handshake) };
  } catch (error) {
    await process.close();
    throw error;
  }
}
