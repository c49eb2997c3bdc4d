// launch.mjs - what the browser tests share: Debian's Chromium through
// playwright-core, or the reason the tests skip.
import { existsSync } from "node:fs";

const CHROMIUM = process.env.AF_CHROMIUM || "/usr/bin/chromium";
let chromium = null;
try {
  ({ chromium } = await import("playwright-core"));
} catch (e) {
  chromium = null;
}

/** Why the browser tests cannot run here, or null when they can. */
export const why = !existsSync(CHROMIUM) ? `skipped: ${CHROMIUM} is not installed`
                 : !chromium ? "skipped: playwright-core is not installed (npm ci in tests/browser)"
                 : null;
if (why) console.log(why);

/** Starts a headless Chromium that stays off the network. */
export function launch() {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update",
           "--disable-sync"],
  });
}

/**
 * Every <img> of the page once it has settled: each is scrolled into view
 * first, since thumbnails load lazily and Chromium fetches one below the
 * fold only when it comes near, whatever the "load" event said. Returns
 * { src, w, h } per image; a broken image has w = h = 0.
 */
export async function settledImages(page, timeout = 30000) {
  const out = [];
  for (const img of await page.$$("img")) {
    await img.scrollIntoViewIfNeeded();
    await page.waitForFunction((i) => i.complete, img, { timeout });
    out.push(await img.evaluate((i) => ({ src: i.src, w: i.naturalWidth, h: i.naturalHeight })));
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  return out;
}
