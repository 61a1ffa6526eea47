/**
 * The ACP SDK's validating elicitation guards (`CreateElicitationRequest.isForm` / `isUrl`, spec 30
 * §6.3), loaded on their first call instead of at the bridge's import.
 *
 * Why: the guards live in the SDK's root module, whose import builds every zod schema of ACP v1
 * (`schema/zod.gen.js`, about 180 objects) and the SDK's connection classes; the bridge needs them
 * only when an agent sends `elicitation/create`, which most sessions never do. Imported eagerly they
 * were the larger part of the ACP bridge's start-up over the native bridges (bench/README.md,
 * "Counted in instructions").
 *
 * Synchronous on purpose: `require` of an ES module (Node ≥ 20.19, the package's `engines`) loads
 * the SDK in the same turn of the event loop, so an elicitation is planned exactly where it was
 * before; an awaited `import()` would let the agent's later lines overtake it. Node's module cache
 * keeps the loaded SDK, so the cost is paid once per process. In a spawned bundle the SDK is loaded
 * from `node_modules` with its own zod (nothing of it is shared with the bundle's schemas).
 */
import { createRequire } from "node:module";
import type * as AcpSdk from "@agentclientprotocol/sdk";

const requireFromHere = createRequire(import.meta.url);

/** The SDK's `CreateElicitationRequest` guards (the same object the SDK exports); loads the SDK on the first call. */
export function elicitationRequestGuards(): typeof AcpSdk.CreateElicitationRequest {
  return (requireFromHere("@agentclientprotocol/sdk") as typeof AcpSdk).CreateElicitationRequest;
}
