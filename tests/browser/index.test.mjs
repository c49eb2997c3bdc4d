// index.test.mjs - the per-thread set's index page in Chromium: every link
// leads to a file that is there, every thumbnail loads, names stay text.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { why, launch, settledImages } from "./launch.mjs";
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
  const imgs = await settledImages(page);
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

// A dark set with small thumbnails (issue 17): the page is dark like its
// graphs, nothing yellow beside a thumbnail, thumbnails at their own size,
// counts grouped, a frame name broken only between its parts.
test("dark theme, small thumbnails: the page lays out as drawn", { skip: why || false }, async () => {
  const dark = process.env.AF_TMP + "/browser-index-dark";
  rmSync(dark, { recursive: true, force: true });
  execFileSync(cli, ["--per-thread", "--theme", "dark", "--thumbnail", "240x60", "-o", dark,
                     `${samples}/app.trace`]);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(pathToFileURL(`${dark}/index.html`).href);
  for (const i of await settledImages(page)) assert.ok(i.w > 0, `${i.src} did not load`);
  const r = await page.evaluate(() => {
    const lum = (c) => {
      const [r, g, b] = c.match(/\d+/g).map(Number);
      return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
    };
    const paints = [];
    for (const img of document.images) {
      const card = img.closest(".card"), cardBg = getComputedStyle(card).backgroundColor;
      for (let e = img.parentElement; e !== card; e = e.parentElement) {
        const bg = getComputedStyle(e).backgroundColor;
        if (bg !== "rgba(0, 0, 0, 0)" && bg !== cardBg) paints.push(`${e.className}: ${bg}`);
      }
    }
    const counts = [...document.querySelectorAll("dt")]
      .filter((dt) => dt.textContent === "records" || dt.textContent === "calls")
      .map((dt) => dt.nextElementSibling.textContent);
    return {
      page: lum(getComputedStyle(document.body).backgroundColor),
      card: lum(getComputedStyle(document.querySelector(".card")).backgroundColor),
      paints,
      sizes: [...document.images].map((i) => [i.naturalWidth, i.naturalHeight, i.clientWidth, i.clientHeight]),
      counts,
    };
  });
  assert.ok(r.page < 0.15 && r.card < 0.2, `a light page for --theme dark (${r.page}, ${r.card})`);
  assert.deepEqual(r.paints, []);
  assert.ok(r.sizes.length >= 5);
  for (const [nw, nh, w, h] of r.sizes) {
    assert.deepEqual([nw, nh], [240, 60]);
    assert.deepEqual([w, h], [240, 60], "a thumbnail is not shown at its own size");
  }
  assert.ok(r.counts.length >= 10);
  for (const c of r.counts) assert.match(c, /^\d{1,3}(,\d{3})*$/);
  assert.ok(r.counts.some((c) => c.includes(",")), r.counts.join(" "));

  // narrow: long names wrap, between their parts only
  await page.setViewportSize({ width: 360, height: 900 });
  const breaks = await page.evaluate(() => {
    const bad = [];
    let wraps = 0;
    for (const dd of document.querySelectorAll("dd.hot")) {
      const walk = document.createTreeWalker(dd, NodeFilter.SHOW_TEXT);
      let top = null, prev = "";
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        for (let i = 0; i < n.data.length; i++) {
          const range = document.createRange();
          range.setStart(n, i);
          range.setEnd(n, i + 1);
          const box = range.getClientRects()[0];
          if (!box) continue;
          if (top !== null && box.top > top + 2) {
            wraps++;
            if (!/[.$\/, ]/.test(prev)) bad.push(`${dd.textContent} before "${n.data.slice(i)}"`);
          }
          top = box.top;
          prev = n.data[i];
        }
      }
    }
    return { bad, wraps };
  });
  assert.ok(breaks.wraps > 0, "no name wrapped");
  assert.deepEqual(breaks.bad, []);
  await page.close();
});
