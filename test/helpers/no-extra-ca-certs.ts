/**
 * vitest global setup of `npm test`'s two projects (vitest.config.ts; not of `npm run test:ci`,
 * whose README tour runs `npm ci` against the registry): runs in vitest's main process before any
 * worker is forked, and takes `NODE_EXTRA_CA_CERTS` out of the environment the workers, and every
 * process a test spawns (CLI, bridges, fixture agents), inherit.
 *
 * Why: where it is set (some machines point it at the system CA bundle), every Node process parses
 * that bundle as it starts, ~45 ms of CPU of a bare `node -e 0`'s ~110 ms, and the suite starts
 * thousands of Node processes. No test of `npm test` talks TLS: bridges, fixture agents and model
 * endpoints are on loopback; the live agent recordings run in a network namespace with only
 * loopback where one can be made (`--network auto`); the only registry client is
 * test/api/packed-tarball.test.ts's `npm pack`, which reads no network and still gets the value
 * back (`PARITY_TEST_NODE_EXTRA_CA_CERTS`, `extraCaCertsEnv`).
 */
export const SAVED_CA_CERTS = "PARITY_TEST_NODE_EXTRA_CA_CERTS";

/** Moves `NODE_EXTRA_CA_CERTS` (when set) to `PARITY_TEST_NODE_EXTRA_CA_CERTS` in this process's env. */
export default function setup(): void {
  const value = process.env.NODE_EXTRA_CA_CERTS;
  if (value === undefined) return;
  process.env[SAVED_CA_CERTS] = value;
  delete process.env.NODE_EXTRA_CA_CERTS;
}

/**
 * The env entry a test gives back to a registry client (`npm`) it spawns: `{NODE_EXTRA_CA_CERTS}`
 * with the value the run started with, or `{}` when it had none.
 */
export function extraCaCertsEnv(): Record<string, string> {
  const value = process.env[SAVED_CA_CERTS];
  return value === undefined ? {} : { NODE_EXTRA_CA_CERTS: value };
}
