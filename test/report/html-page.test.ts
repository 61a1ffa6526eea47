import { execFile, execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../cli/run-cli.js";
import { repoRoot } from "./helpers.js";

const run = promisify(execFile);

/** Debian's `chromium`, when installed. Under CI=true it must be (.ci/run installs it). */
function findChromium(): string | undefined {
  for (const name of ["chromium", "chromium-browser"]) {
    try {
      return execFileSync("which", [name], { encoding: "utf8" }).trim() || undefined;
    } catch {
      // not on PATH
    }
  }
  return undefined;
}

const chromium = findChromium();
const ci = process.env.CI === "true";

type Event = Record<string, any>;

let dir: string;
const LANES: string[] = [];

/**
 * Two checkouts whose lanes differ by one change in 9 lanes (every turn/completed status
 * "completed" → "finished"), and in the first lane also one agent message's text.
 */
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "html-page-"));
  const providers = (await readdir(path.join(repoRoot, "lanes"))).sort();
  for (const provider of providers) {
    for (const file of (await readdir(path.join(repoRoot, "lanes", provider))).filter((f) => f.endsWith(".json")).sort()) {
      if (LANES.length === 9) break;
      const lane = JSON.parse(await readFile(path.join(repoRoot, "lanes", provider, file), "utf8")) as Event[];
      if (!lane.some((e) => e.type === "turn/completed" && e.status === "completed")) continue;
      if (!lane.some((e) => e.type === "item/completed" && e.item?.type === "agentMessage")) continue;
      const key = `${provider}/${file.replace(/\.json$/, "")}`;
      const changed = structuredClone(lane);
      for (const event of changed) if (event.type === "turn/completed" && event.status === "completed") event.status = "finished";
      if (LANES.length === 0) {
        const message = changed.find((e) => e.type === "item/completed" && e.item?.type === "agentMessage")!;
        message.item.text = `${message.item.text} Checked twice.`;
      }
      for (const [side, events] of [
        ["a", lane],
        ["b", changed],
      ] as const) {
        await mkdir(path.join(dir, side, "lanes", provider), { recursive: true });
        await writeFile(path.join(dir, side, "lanes", provider, file), `${JSON.stringify(events, null, 2)}\n`);
      }
      LANES.push(key);
    }
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function page(): Promise<string> {
  const file = path.join(dir, "page.html");
  const result = await runCli(["diff", path.join(dir, "a"), path.join(dir, "b"), "--html", file]);
  expect(result.code).toBe(1);
  return file;
}

/** Runs headless Chromium with the isolated flags and a fresh profile; returns stdout. */
async function headless(args: string[]): Promise<string> {
  const profile = await mkdtemp(path.join(os.tmpdir(), "html-page-chromium-"));
  try {
    const { stdout } = await run(
      chromium!,
      [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        `--user-data-dir=${profile}`,
        "--window-size=1280,800",
        ...args,
      ],
      { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
    );
    return stdout;
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
}

/**
 * The page's DOM as headless Chromium renders it, read once for both Chromium tests (one browser
 * start instead of two): a probe copy of the page (the page itself has no script) whose one added
 * script records on <body> where the index and the first change end on the first screen.
 */
let rendered: Promise<{ file: string; dom: string }> | undefined;
function renderProbe(): Promise<{ file: string; dom: string }> {
  rendered ??= (async () => {
    const file = await page();
    const probe = path.join(dir, "probe.html");
    const measure = `<script>const b=(s)=>document.querySelector(s).getBoundingClientRect().bottom;document.body.setAttribute("data-first-screen",JSON.stringify({index:b("#index"),change:b("#change-1"),height:innerHeight}));</script>`;
    await writeFile(probe, (await readFile(file, "utf8")).replace("</body>", `${measure}</body>`));
    return { file, dom: await headless(["--dump-dom", `file://${probe}`]) };
  })();
  return rendered;
}

describe("parity diff --html page", () => {
  it("is self-contained: no script, no external resource", async () => {
    expect(LANES).toHaveLength(9);
    const html = await readFile(await page(), "utf8");
    expect(html).not.toMatch(/<script|<link|<img|src=|url\(|@import/i);
    expect(html).toContain('<ul class="index" id="index">');
  });

  it.skipIf(chromium === undefined && !ci)(
    "renders in headless Chromium: index of the 9 lanes, the change grouped once with its lanes and allow line, word-level highlights",
    async () => {
      expect(chromium, "CI=true: install Debian's chromium (apt-get install -y chromium)").toBeDefined();
      const { dom } = await renderProbe();
      const index = /<ul class="index" id="index">([\s\S]*?)<\/ul>/.exec(dom)![1]!;
      const links = [...index.matchAll(/href="#([^"]+)"/g)].map((m) => m[1]!);
      expect(links).toHaveLength(9);
      for (const id of links) expect(dom).toContain(`id="${id}"`);
      for (const key of LANES) expect(index).toContain(key);

      const statusGroup = dom.split('<div class="group"').find((g) => g.includes("turn/completed · status"))!;
      expect(dom.match(/turn\/completed · status/g)).toHaveLength(1);
      expect(statusGroup).toContain("in 9 lanes");
      for (const key of LANES) expect(statusGroup).toContain(`>${key}</a>`);
      expect(statusGroup).toContain("<del>completed</del>");
      expect(statusGroup).toContain("<ins>finished</ins>");
      expect(statusGroup).toMatch(/parity allow --provider [\w-]+ --cell [\w-]+ --path '\/\*\[turn=1\]\[type=turn\/completed\]\/status'/);
      // The status change and the message change: two groups, the 9-lane one first.
      expect(dom.match(/<div class="group" /g)).toHaveLength(2);
      expect(dom.indexOf("turn/completed · status")).toBeLessThan(dom.indexOf("agentMessage) · item/text"));
      // The message text change: only the added words are marked.
      expect(dom).toContain("<ins> Checked twice.</ins>");
      // Unchanged items are collapsed, changed ones open.
      expect(dom).toMatch(/<details class="item same">/);
      expect(dom).toMatch(/<details class="item changed" open="">/);
    },
    180_000,
  );

  it.skipIf(chromium === undefined && !ci)(
    "shows the index and the grouped change on the first screen (1280×800), and takes a screenshot",
    async () => {
      expect(chromium, "CI=true: install Debian's chromium (apt-get install -y chromium)").toBeDefined();
      const { file, dom } = await renderProbe();
      const figures = JSON.parse(/data-first-screen="([^"]+)"/.exec(dom)![1]!.replace(/&quot;/g, '"')) as { index: number; change: number; height: number };
      expect(figures.height).toBeGreaterThan(500);
      expect(figures.index).toBeLessThanOrEqual(figures.height);
      expect(figures.change).toBeLessThanOrEqual(figures.height);
      const shot = path.join(dir, "first-screen.png");
      await headless([`--screenshot=${shot}`, `file://${file}`]);
      expect((await readFile(shot)).subarray(1, 4).toString()).toBe("PNG");
    },
    180_000,
  );
});
