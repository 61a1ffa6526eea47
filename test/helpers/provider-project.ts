import { cp } from "node:fs/promises";
import path from "node:path";

/**
 * Copies one provider's committed recordings and oracles (`recordings/<provider>`,
 * `lanes/<provider>` under `repoRoot`) into `dir`, a fresh project for a test to change.
 * Returns `dir`.
 */
export async function copyProviderProject(repoRoot: string, provider: string, dir: string): Promise<string> {
  await cp(path.join(repoRoot, "recordings", provider), path.join(dir, "recordings", provider), { recursive: true });
  await cp(path.join(repoRoot, "lanes", provider), path.join(dir, "lanes", provider), { recursive: true });
  return dir;
}
