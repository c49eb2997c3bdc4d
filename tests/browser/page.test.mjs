// page.test.mjs - what a person expects of the interactive SVG in Chromium
// (issue 17): diff tooltips, keys, links, the details and "Matched" lines,
// scrolling, contrast, the picture without a script, labels after a zoom,
// search errors and the legend.
// Run by ctest, which sets AF_CLI, AF_SAMPLES and AF_TMP.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { why, launch } from "./launch.mjs";
import { pathToFileURL } from "node:url";

const cli = process.env.AF_CLI;
const samples = process.env.AF_SAMPLES;
const tmp = process.env.AF_TMP + "/browser-page";
const app = `${samples}/app.trace`, appAfter = `${samples}/app-after.trace`;
const skip = { skip: why || false };

let browser;
before(async () => {
  if (why) return;
  mkdirSync(tmp, { recursive: true });
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); });

// Draws `args` to tmp/<name>.svg; returns its path.
function draw(name, args) {
  const file = `${tmp}/${name}.svg`;
  execFileSync(cli, ["-o", file, ...args]);
  return file;
}

async function open(file, { width = 1300, height = 400, query = "" } = {}) {
  const page = await browser.newPage({ viewport: { width, height } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(file.startsWith("file:") ? file : pathToFileURL(file).href + query);
  await page.waitForFunction(() => window.aflame && window.aflame.frames.length > 0);
  page.errors = errors;
  return page;
}

async function frameBox(page, name) {
  return page.evaluate((n) => {
    const f = window.aflame.frames.find((f) => f.name === n);
    const r = f.rect.getBoundingClientRect();
    return { x: r.x, y: r.y, w: r.width, h: r.height };
  }, name);
}

// The <title>s a static SVG (--no-javascript) gets for the same arguments.
function staticTitles(args) {
  const svg = execFileSync(cli, ["--no-javascript", ...args]).toString();
  const frames = svg.slice(svg.indexOf('<g id="frames">'));
  const ents = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };
  return [...frames.matchAll(/<title>(.*?)<\/title>/gs)]
    .map((m) => m[1].replace(/&(lt|gt|amp|quot|apos);/g, (_, e) => ents[e]));
}

// Share of the graph held by call paths through a frame matching `re`.
function foldedShare(args, re) {
  const folded = execFileSync(cli, ["--format", "folded", ...args]).toString();
  let total = 0, hit = 0;
  for (const line of folded.trim().split("\n")) {
    const sp = line.lastIndexOf(" ");
    const n = +line.slice(sp + 1);
    total += n;
    if (line.slice(0, sp).split(";").some((f) => re.test(f))) hit += n;
  }
  return (100 * hit) / total;
}

// 1. --diff of two traces: the script's tooltips are the static SVG's
test("1: --diff tooltips give before -> after, as the static SVG", skip, async () => {
  const args = ["--diff", app, appAfter];
  const want = staticTitles(args);
  const page = await open(draw("diff", args));
  const got = await page.evaluate(() => window.aflame.frames.map((f) => window.aflame.tip(f)));
  assert.deepEqual(got, want);
  // the root grew: its change is in its tooltip, not "+0.00%"
  assert.match(got[0], /^all \([^)]*\): [\d.]+ m?s → [\d.]+ m?s \(\+[\d.]+ m?s, \+\d+%\)/);
  const box = await frameBox(page, "all");
  await page.mouse.move(box.x + box.w / 2, box.y + box.h / 2);
  assert.equal(await page.textContent("#details"), want[0]);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// 2. Ctrl-F and Ctrl-I with Shift (or Caps Lock): the key is "F", "I"
test("2: Ctrl-Shift-F searches and Ctrl-Shift-I toggles the case", skip, async () => {
  const page = await open(draw("app", [app]));
  let asked = 0;
  page.on("dialog", (d) => { asked++; d.accept("Json"); });
  await page.keyboard.press("Control+Shift+KeyF");
  await page.waitForFunction(() => document.getElementById("matched").textContent !== "");
  assert.equal(asked, 1);
  const on = () => page.evaluate(() => document.getElementById("ignorecase").classList.contains("on"));
  assert.equal(await on(), false);
  await page.keyboard.press("Control+Shift+KeyI");
  assert.equal(await on(), true);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// 3. a typed URL keeps its '+'; a space survives the round trip
test("3: ?s= keeps a literal '+', and spaces round-trip", skip, async () => {
  const file = draw("app", [app]);
  let page = await open(file, { query: "?s=Object.wait+$" });
  const want = foldedShare([app], /Object.wait+$/);
  assert.ok(want > 1);
  assert.ok(Math.abs(+(await page.getAttribute("#matched", "data-pct")) - want) < 0.01);
  await page.evaluate(() => window.aflame.search("Object.wait|Json parse|Json.parse"));
  const url = page.url(), pct = await page.getAttribute("#matched", "data-pct");
  assert.match(url, /s=Object\.wait%7CJson%20parse%7CJson\.parse$/);
  await page.close();
  page = await open(url);
  assert.equal(await page.getAttribute("#matched", "data-pct"), pct);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// 4. the details line stays in the space it has, left of "Matched"
test("4: the details line is cut to its space; the tooltip keeps it whole", skip, async () => {
  const page = await open(draw("narrow", ["--width", "400", app]), { width: 420 });
  await page.evaluate(() => window.aflame.search("Json"));
  const name = "com.example.shop.ui.CartViewModel$load$1.invokeSuspend";
  const box = await frameBox(page, name);
  await page.mouse.move(box.x + Math.min(box.w / 2, 3), box.y + box.h / 2);
  const r = await page.evaluate((n) => {
    const d = document.getElementById("details"), m = document.getElementById("matched");
    const f = window.aflame.frames.find((f) => f.name === n);
    const db = d.getBBox(), mb = m.getBBox();
    return { text: d.textContent, right: db.x + db.width, matchedLeft: mb.x,
             title: f.g.querySelector("title").textContent, tip: window.aflame.tip(f) };
  }, name);
  assert.ok(r.tip.length > 60, r.tip);
  assert.equal(r.title, r.tip);
  assert.ok(r.text.endsWith(".."), r.text);
  assert.ok(r.tip.startsWith(r.text.slice(0, -2)), `${r.text} is not the start of ${r.tip}`);
  assert.ok(r.right <= r.matchedLeft - 6, `details end at ${r.right}, Matched begins at ${r.matchedLeft}`);
  assert.ok(r.right <= 390);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// 5. "Matched" is exact even when most matches are under a pixel wide
test("5: Matched gives the exact share, narrow frames included", skip, async () => {
  const lines = ["root;big 3000"];
  for (let i = 0; i < 2000; i++) lines.push(`root;f${String(i).padStart(4, "0")};Json.parse 1`);
  writeFileSync(`${tmp}/narrow.folded`, lines.join("\n") + "\n");
  const page = await open(draw("narrow-frames", [`${tmp}/narrow.folded`]));
  await page.evaluate(() => window.aflame.search("Json"));
  assert.equal(await page.getAttribute("#matched", "data-pct"), "40.000");
  assert.equal(await page.textContent("#matched"), "Matched: 40.00%");
  // in a zoomed view, of the zoomed frame
  await page.evaluate(() => window.aflame.zoom(window.aflame.frames.find((f) => f.name === "root")));
  assert.equal(await page.getAttribute("#matched", "data-pct"), "40.000");
  assert.deepEqual(page.errors, []);
  await page.close();
});

// 6. a tall graph opens on its root; "Matched" stays in view
test("6: a tall graph opens scrolled to the root, and Matched shows", skip, async () => {
  const deep = Array.from({ length: 80 }, (_, i) => `level${i}`).join(";");
  writeFileSync(`${tmp}/deep.folded`, `${deep} 5\nlevel0;other 3\n`);
  let page = await open(draw("deep", [`${tmp}/deep.folded`]), { height: 400 });
  // a line of text, by its baseline (an empty one has no box)
  const inView = (sel) => page.evaluate((s) => {
    const y = +document.querySelector(s).getAttribute("y") - window.scrollY;
    return y - 12 >= 0 && y + 4 <= window.innerHeight;
  }, sel);
  const root = await frameBox(page, "all");
  assert.ok(root.y >= 0 && root.y + root.h <= 400, `root at y=${root.y}`);
  assert.ok(await inView("#details"));
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.evaluate(() => window.aflame.search("level7"));
  assert.ok(await inView("#matched"), "Matched is out of view after a search");
  await page.close();
  // an icicle graph has its root at the top
  page = await open(draw("deep-icicle", ["--inverted", `${tmp}/deep.folded`]), { height: 400 });
  assert.equal(await page.evaluate(() => window.scrollY), 0);
  page.on("dialog", (d) => d.accept("level7"));
  await page.keyboard.press("Control+f");
  await page.waitForFunction(() => document.getElementById("matched").textContent !== "");
  assert.ok(await inView("#matched"), "Matched is out of view after a search");
  assert.deepEqual(page.errors, []);
  await page.close();
});

// WCAG contrast of two "rgb(r, g, b)" / "#rrggbb" colours
function contrast(a, b) {
  const rgb = (c) => c.startsWith("#") ? [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16))
                                       : c.match(/\d+/g).slice(0, 3).map(Number);
  const lum = (c) => {
    const [r, g, bl] = rgb(c).map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

// 7. every text is at least 4.5:1 against what is behind it, both themes
test("7: every text has a contrast of at least 4.5:1, light and dark", skip, async () => {
  for (const theme of [[], ["--theme", "dark"], ["--bgcolors", "blue"]]) {
    const page = await open(draw("contrast", [...theme, "--subtitle", "a subtitle", app]));
    await page.evaluate(() => window.aflame.search("Json"));
    await page.evaluate(() => window.aflame.zoom(window.aflame.frames[3]));
    const box = await frameBox(page, "main");
    await page.mouse.move(box.x + 3, box.y + box.h / 2);
    const texts = await page.evaluate(() => {
      const stops = [...document.querySelectorAll("#background stop")].map((s) => s.getAttribute("stop-color"));
      return [...document.querySelectorAll("text")]
        .filter((t) => t.textContent.trim() !== "" && getComputedStyle(t).display !== "none" &&
                       !t.closest("#frames"))
        .map((t) => ({ id: t.id || t.textContent, fill: getComputedStyle(t).fill, stops }));
    });
    assert.ok(texts.length >= 12, `${texts.length} texts`);
    for (const t of texts)
      for (const bg of t.stops)
        assert.ok(contrast(t.fill, bg) >= 4.5,
                  `${theme.join(" ") || "light"}: "${t.id}" ${t.fill} on ${bg}: ${contrast(t.fill, bg).toFixed(2)}:1`);
    await page.close();
  }
});

// 7. frame labels too: white on dark fills, as drawn and after a search
// and a zoom
test("7: every frame label has a contrast of at least 4.5:1", skip, async () => {
  const hot = Array.from({ length: 60 }, (_, i) => `main;fn${i};leaf${i * 7} ${5 + i}`);
  writeFileSync(`${tmp}/hot.folded`, hot.join("\n") + "\n");
  for (const args of [[app], ["--diff", app, appAfter], [`${tmp}/hot.folded`],
                      ["--colors", "blue", `${tmp}/hot.folded`]]) {
    const page = await open(draw("labels", args));
    const check = async (when) => {
      const bad = await page.evaluate(() => window.aflame.frames
        .filter((f) => f.shown && f.text && f.text.textContent)
        .map((f) => ({ name: f.name, text: getComputedStyle(f.text).fill, fill: f.rect.getAttribute("fill") })));
      assert.ok(bad.length > 0, `${args.join(" ")} ${when}: no labels`);
      for (const b of bad)
        assert.ok(contrast(b.text, b.fill) >= 4.5,
                  `${args.join(" ")} ${when}: "${b.name}" ${b.text} on ${b.fill}: ${contrast(b.text, b.fill).toFixed(2)}:1`);
    };
    await check("as drawn");
    await page.evaluate(() => window.aflame.search("a|e"));
    await check("searched");
    await page.evaluate(() => window.aflame.zoom(window.aflame.frames[2]));
    await check("zoomed");
    await page.evaluate(() => { window.aflame.resetSearch(); window.aflame.unzoom(); });
    await check("back");
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

// 8. without a script nothing interactive is drawn; a static SVG does not
// promise clicks
test("8: as an <img> the interactive SVG is the static picture; static frames are no links", skip, async () => {
  const live = draw("img-live", [app]), still = `${tmp}/img-static.svg`;
  execFileSync(cli, ["--no-javascript", "-o", still, app]);
  const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  const shots = [];
  for (const file of [live, still]) {
    const html = `${file}.html`;
    writeFileSync(html, `<!doctype html><body style="margin:0"><img src="${pathToFileURL(file).href}">`);
    await page.goto(pathToFileURL(html).href);
    await page.waitForFunction(() => document.images[0].complete && document.images[0].naturalWidth > 0);
    const h = await page.evaluate(() => document.images[0].naturalHeight);
    shots.push(await page.screenshot({ clip: { x: 0, y: 0, width: 1200, height: h } }));
  }
  assert.ok(shots[0].equals(shots[1]), "the SVG as an <img> differs from the static SVG");
  await page.goto(pathToFileURL(still).href);
  const cursors = await page.evaluate(() => [...document.querySelectorAll("#frames g")]
    .map((g) => getComputedStyle(g).cursor));
  assert.ok(cursors.length > 10 && cursors.every((c) => c !== "pointer"), "static frames show a hand");
  await page.close();
});

// 9. labels: the same after a zoom and back, and fitted as the C side fits
// Zooms into every frame in turn, back each time; returns the labels that
// changed.
async function changedLabels(page) {
  return page.evaluate(() => {
    const F = window.aflame.frames, labels = () => F.map((f) => f.text ? f.text.textContent : "");
    const first = labels(), changed = [];
    for (let i = 1; i < F.length; i++) {
      window.aflame.zoom(F[i]);
      window.aflame.unzoom();
    }
    labels().forEach((l, i) => { if (l !== first[i]) changed.push(`${first[i]} -> ${l}`); });
    return changed;
  });
}

test("9: labels come back unchanged after zooms, and the script fits as C does", skip, async () => {
  // widths that are whole pixels (the total is 1180), names of every kind
  const names = ["androidx.lifecycle.LiveData.observe", "com.example.shop.MainActivity.onCreate",
                 "café.Crème.brûlée", "后台同步.任务.执行", "日本語のメソッド名", "emoji😀.method🔄.run",
                 "W.M.W.M.W.M.W.M.W.M", "iiiiiiiiiiiiiiiiiiiiiiiiiiiiiiii", "x",
                 // shaped: right to left, joined, conjuncts, marks, emoji sequences
                 "مرحبا.بالعالم.run", "com.example.שלום.עולם", "नमस्ते.दुनिया.क्षत्रिय",
                 "e\u0301te\u0301.cafe\u0301.n\u0303", "👨‍👩‍👧.family.🇫🇷🇩🇪.1️⃣", "后台 sync 🔄"];
  const lines = [];
  let used = 0;
  for (let w = 7; used + w <= 1180 - 40; w += 3) {
    lines.push(`t;${names[lines.length % names.length]}#${lines.length} ${w}`);
    used += w;
  }
  lines.push(`t;rest ${1180 - used}`);
  writeFileSync(`${tmp}/widths.folded`, lines.join("\n") + "\n");
  let page = await open(draw("widths", [`${tmp}/widths.folded`]));
  const diffs = await page.evaluate(() => window.aflame.frames
    .map((f) => ({ name: f.name, c: f.text ? f.text.textContent : "", js: window.aflame.fit(f.name, f.w) }))
    .filter((x) => x.c !== x.js));
  assert.deepEqual(diffs, []);
  assert.deepEqual(await changedLabels(page), []);
  await page.close();
  for (const width of ["900", "700"]) {
    page = await open(draw("app-" + width, ["--width", width, app]));
    assert.deepEqual(await changedLabels(page), [], `--width ${width}`);
    await page.close();
  }
});

// 10. an error goes away with the next search, even a cancelled one
test("10: 'Bad pattern' is cleared by a later cancelled or empty search", skip, async () => {
  const page = await open(draw("app", [app]));
  const answers = ["(", null, "(", ""];
  page.on("dialog", (d) => { const a = answers.shift(); a === null ? d.dismiss() : d.accept(a); });
  const matched = () => page.textContent("#matched");
  for (let k = 0; k < 2; k++) {
    await page.keyboard.press("Control+f");
    await page.waitForFunction(() => document.getElementById("matched").textContent.startsWith("Bad pattern"));
    await page.keyboard.press("Control+f");
    await page.waitForTimeout(50);
    assert.equal(await matched(), "", `after a ${k ? "empty" : "cancelled"} search`);
  }
  assert.deepEqual(page.errors, []);
  await page.close();
});

// 11. the legend stays inside a narrow image
test("11: the legend fits a 400 px graph", skip, async () => {
  for (const width of [400, 300, 200, 1200]) {
    const page = await open(draw("legend", ["--width", String(width), app]), { width: width + 20 });
    const b = await page.evaluate(() => {
      const r = document.getElementById("legend").getBBox();
      return { x: r.x, right: r.x + r.width, n: document.querySelectorAll("#legend text").length };
    });
    // the kinds the sample's frames are drawn in: app, android, libraries,
    // idle, blocked, thread (no native or kernel frames: not listed)
    assert.equal(b.n, 6);
    assert.ok(b.x >= 0 && b.right <= width, `${width} px: legend spans ${b.x} to ${b.right}`);
    await page.close();
  }
});
