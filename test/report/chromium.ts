import { execFile, execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Debian's `chromium`, when installed. Under CI=true it must be (.ci/run installs it). */
export function findChromium(): string | undefined {
  for (const name of ["chromium", "chromium-browser"]) {
    try {
      return execFileSync("which", [name], { encoding: "utf8" }).trim() || undefined;
    } catch {
      // not on PATH
    }
  }
  return undefined;
}

/** Runs headless Chromium with isolated flags and a fresh profile (as test/report/html-page.test.ts); returns stdout. */
export async function headless(chromium: string, args: string[]): Promise<string> {
  const profile = await mkdtemp(path.join(os.tmpdir(), "run-page-chromium-"));
  try {
    const flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
    const { stdout } = await run(chromium, [...flags, `--user-data-dir=${profile}`, "--window-size=1280,800", ...args], {
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
      timeout: 120_000,
    });
    return stdout;
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
}

/**
 * Loads `page` in headless Chromium with `probe` (a script body) run after the page's own script,
 * and returns the JSON the probe stored with `report(value)`. The page file itself is not changed.
 */
export async function probePage(chromium: string, page: string, probe: string): Promise<unknown> {
  const copy = `${page}.probe.html`;
  const script = `<script>function report(v){document.body.setAttribute("data-probe",JSON.stringify(v));}${probe}</script>`;
  await writeFile(copy, (await readFile(page, "utf8")).replace("</body>", `${script}</body>`));
  const dom = await headless(chromium, ["--dump-dom", `file://${copy}`]);
  const match = /data-probe="([^"]*)"/.exec(dom);
  if (!match) throw new Error("the probe reported nothing");
  return JSON.parse(
    match[1]!
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, "&")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">"),
  );
}
