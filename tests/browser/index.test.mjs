// index.test.mjs - the per-thread set's index page in Chromium: every link
// leads to a file that is there, every thumbnail loads, names stay text.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { why, launch } from "./launch.mjs";
import { fileURLToPath, pathToFileURL } from "node:url";

const cli = process.env.AF_CLI;
const samples = process.env.AF_SAMPLES;
const dir = process.env.AF_TMP + "/browser-index";


let browser;
before(async () => {
  if (why) return;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync(cli, ["--per-thread", "--min-share", "8", "-o", dir, `${samples}/app.trace`]);
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); });

test("index links resolve and thumbnails load", { skip: why || false }, async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [], failed = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("requestfailed", (r) => failed.push(r.url()));
  await page.goto(pathToFileURL(`${dir}/index.html`).href);
  await page.waitForLoadState("load");
  const links = await page.$$eval("a[href]", (as) => as.map((a) => a.href));
  assert.ok(links.length >= 8, `${links.length} links`);
  for (const href of links) assert.ok(existsSync(fileURLToPath(href)), `${href} is missing`);
  const imgs = await page.$$eval("img", (is) => is.map((i) => ({
    src: i.src, w: i.naturalWidth, h: i.naturalHeight })));
  assert.equal(imgs.length, 5); // all + the four threads over 8%
  for (const i of imgs) assert.ok(i.w > 0 && i.h > 0, `${i.src} did not load`);
  const names = await page.$$eval(".card h2 a", (as) => as.map((a) => a.textContent));
  assert.deepEqual(names, ["All threads", "main", "pool-1-thread-1", "RenderThread",
                           "pool-1-thread-2"]);
  assert.match(await page.textContent("#skipped"), /1 thread under 8% of the time/);
  // a card opens its graph, and that graph is interactive
  await page.click("text=RenderThread >> nth=0");
  await page.waitForFunction(() => window.aflame && window.aflame.frames.length > 0);
  assert.match(page.url(), /2-RenderThread\.svg$/);
  assert.deepEqual(errors, []);
  assert.deepEqual(failed, []);
  await page.close();
});
