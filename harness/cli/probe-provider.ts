/**
 * `parity probe --provider <id>` (docs/design/00-product.md flow `probe`): the provider is prepared exactly
 * as `parity record` prepares it — one temp root holding the workspace, a fresh HOME with its
 * XDG dirs and TMPDIR, the profile's config files and env, the loopback model endpoint in the
 * profile's model API, the agent in a fresh network namespace when there is one — and its
 * family's `probe` hook asks the agent what it supports. The temp root is removed afterwards;
 * nothing is written anywhere else. Names no family: the list decides.
 */
import { mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { BRIDGE_FAMILIES, probeFamilyOf, probeProviderIds, recordProviderFor, type BridgeFamily, type ProbeAnswer } from "../families/index.js";
import type { RecordDirs, RecordProvider } from "../families/record-provider.js";
import { UsageError } from "../errors.js";
import { startModelServer, type ModelServer } from "../model-server/server.js";
import { ensureDir } from "../recording/atomic-write.js";
import { NETNS_MODEL_PORT, NETWORK_NETNS, netnsSpawn, type NetworkIsolation } from "../record/network.js";
import { socketDirFor, type SocketDir } from "../runtime/unix-socket-path.js";

/** What the model endpoint answers a probe prompt (one text answer; titles get the default). */
export const PROBE_MODEL_ANSWER = "parity probe: the loopback model endpoint answered.";

/** Options of {@link probeProvider}. */
export interface ProviderProbeOptions {
  providerId: string;
  /** A customAgents file whose entries (and their `record` profiles) are providers too. */
  customAgentsFile?: string;
  /** The family list; default the shipped one (tests bring their own). */
  families?: readonly BridgeFamily[];
  /** Where the run's temp root is made. */
  tempRoot: string;
  /** The namespace the agent runs in; undefined: the host network. */
  isolation: Extract<NetworkIsolation, { kind: "netns" }> | undefined;
  /** ms each request to the agent may wait. */
  timeoutMs: number;
  /** Go on to `session/new` and this one prompt. */
  prompt?: string;
}

/** The model endpoint of a probe run: no responses, or one text answer for `--prompt`; a Unix socket inside a namespace. */
function startProbeModel(options: ProviderProbeOptions, socketPath: string, api: Parameters<typeof startModelServer>[0]["api"]): Promise<ModelServer> {
  return startModelServer({
    script: { title: "Parity probe session", responses: options.prompt === undefined ? [] : [{ text: PROBE_MODEL_ANSWER, hold: false, repeat: false }] },
    ...(api ? { api } : {}),
    ...(options.isolation ? { unixSocket: { path: socketPath, port: NETNS_MODEL_PORT } } : {}),
  });
}

/**
 * Checks `providerId` (and its customAgents file) and returns the probe to run: everything a user
 * can get wrong is found here, before the probe starts an agent or shows progress; the returned
 * function probes `providerId`'s agent through its family's `probe` hook, prepared as `record`
 * would (module doc).
 *
 * @throws UsageError for a provider no family with a probe owns, or one no list or file knows;
 *   InputError for a bad customAgents file. The returned function throws what the provider's
 *   `prepare` throws (an agent not installed).
 */
export async function planProviderProbe(options: ProviderProbeOptions): Promise<() => Promise<ProbeAnswer>> {
  const families = options.families ?? BRIDGE_FAMILIES;
  const family = probeFamilyOf(options.providerId, families);
  if (options.customAgentsFile === undefined && !probeProviderIds(families).includes(options.providerId)) {
    throw new UsageError(`--provider ${options.providerId}: unknown (parity probe knows ${probeProviderIds(families).join(", ")}, or acp-<slug> with --custom-agents)`);
  }
  const provider = await recordProviderFor(options.providerId, options.customAgentsFile, families);
  return () => probeResolved(options, family, provider);
}

/** Probes a provider {@link planProviderProbe} has checked: its temp root, model endpoint and agent, all removed after. */
async function probeResolved(options: ProviderProbeOptions, family: ReturnType<typeof probeFamilyOf>, provider: RecordProvider): Promise<ProbeAnswer> {
  const root = await mkdtemp(path.join(options.tempRoot, "parity-probe-"));
  const dirs: RecordDirs = { root, workspace: path.join(root, "workspace"), home: path.join(root, "home") };
  let model: ModelServer | undefined;
  let sockets: SocketDir | undefined;
  try {
    await ensureDir(dirs.workspace);
    // A long TMPDIR leaves no room for `<root>/model.sock` (unix-socket-path.ts).
    sockets = await socketDirFor(root, "model.sock");
    const socketPath = path.join(sockets.dir, "model.sock");
    model = provider.takesModelEndpoint ? await startProbeModel(options, socketPath, provider.modelApi) : undefined;
    const prepared = await provider.prepare(dirs, model);
    const { isolation } = options;
    return await family.probe.provider({
      providerId: options.providerId,
      prepared,
      dirs,
      timeoutMs: options.timeoutMs,
      ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
      ...(isolation ? { spawn: model ? netnsSpawn(isolation, socketPath, NETNS_MODEL_PORT) : netnsSpawn(isolation), network: NETWORK_NETNS } : {}),
    });
  } finally {
    await model?.close();
    if (sockets?.owned) await rm(sockets.dir, { recursive: true, force: true });
    await rm(root, { recursive: true, force: true });
  }
}
