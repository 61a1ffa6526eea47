/**
 * `model/list` for pi (spec 20 §3.11; pi 0.73.1 `docs/rpc.md` "Model"): models belong to no
 * thread, so a throwaway `pi --mode rpc --no-session` (nothing written to pi's session dir) is
 * started from the request's `providerOptions.piLaunchSpec`, asked `get_state` (the model a new
 * session starts with: the default) and then `get_available_models`, one after the other so
 * the wire order is fixed, and ended. Its lines are recorded in the `_process` scope.
 */
import { BRIDGE_JSON_RPC_ERRORS, BridgeJsonRpcError } from "../protocol/errors.js";
import type { ModelListResult } from "../protocol/methods.js";
import { piArgs, piLaunchSpecOf } from "./launch.js";
import { availableModelsOf, currentModelOf, modelListOf } from "./models.js";
import { startPiRpc, type PiProcessDeps, type PiRpc } from "./rpc.js";

/** What `model/list` carries (spec 20 §3.11): the launch spec under `providerOptions`, and a cwd. */
export interface PiModelListParams {
  providerOptions?: Record<string, unknown>;
  cwd?: string;
}

/**
 * Lists pi's models through a throwaway process (see the module comment).
 * @returns `{models: [{id: "<provider>/<id>", model, displayName, isDefault}], selectedOnlyModels: []}`
 * @throws BridgeJsonRpcError −32602 for a bad `providerOptions.piLaunchSpec`; −32000 when pi
 *   does not start, does not answer within `deps.startTimeoutMs`, or refuses a command.
 */
export async function listPiModels(deps: PiProcessDeps, params: PiModelListParams): Promise<ModelListResult> {
  const spec = piLaunchSpecOf({ providerOptions: params.providerOptions ?? {} });
  let rpc: PiRpc;
  try {
    rpc = startPiRpc(deps, { command: spec.command, args: piArgs(spec, { ephemeral: true }), env: spec.env }, params.cwd ?? deps.ctx.tempDir, null, {
      onEvent: () => undefined,
      onExit: () => undefined,
      onNoise: (line) => deps.ctx.log(`pi model/list: non-JSON line: ${line.slice(0, 200)}`),
    });
  } catch (error) {
    throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, `pi could not start: ${(error as Error).message}`);
  }
  const cancelKill = rpc.killAfter(deps.startTimeoutMs);
  try {
    const state = await rpc.command("get_state");
    if (!state.success) throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, `pi get_state failed: ${state.error ?? "unknown error"}`);
    const models = availableModelsOf(await rpc.command("get_available_models"));
    return modelListOf(models, currentModelOf(state.data));
  } catch (error) {
    throw error instanceof BridgeJsonRpcError ? error : new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, `pi did not list its models: ${(error as Error).message}`);
  } finally {
    cancelKill();
    await rpc.close();
  }
}
