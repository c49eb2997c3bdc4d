// flame.js - the script embedded in aflame-render's SVG: zoom, search,
// details and tooltips on hover, and the view kept in the URL.  svg.c
// prepends "var AF = {...};" with the image's geometry, the font's advance
// widths, how values print, the table of names and the frames' data.
//
// Frames are written in pre-order (a frame, then its children left to
// right), each as <g><rect/><text/></g> (the text only when a label fits),
// so the tree is rebuilt here from the order and each frame's depth: no
// float comparison decides who is whose parent.  AF.frames holds, for the
// i-th frame, the index of its name in AF.names (and AF.libs, when native
// frames name their library), its total and its calls
// (and with AF.diff its change, with AF.cmp the totals and self times
// BEFORE and AFTER): the tooltip is built from them here, unless --nameattr
// gave the frame a title (then <g><title/><rect/>...).
//
// Everything that only works with a script (the buttons, the details and
// "Matched" lines) is drawn here, so the picture without one (an <img>)
// shows nothing dead.
"use strict";
(function () {
	var svg = document.documentElement, NS = "http://www.w3.org/2000/svg";
	var frames = [];
	var zoomed = null, term = null, ignoreCase = false;
	var details, matched, unzoomBtn, searchBtn, caseBtn;

	function el(id) { return document.getElementById(id); }

	function num(v) { return Math.round(v * 10) / 10; }

	// Advance of a code point at size 1: the numbers the C side fitted
	// with (AF.cx holds every character of the names beyond ASCII).
	function advance(cp) {
		if (cp >= 32 && cp < 127) return AF.cw[cp - 32];
		var a = AF.cx[cp];
		return a !== undefined ? a : cp < 32 || cp === 127 ? 0 : 0.6;
	}

	// The longest prefix of whole characters of `s` that fits `avail`
	// (at size 1) with "..", or all of it when it fits whole, or nothing:
	// font.c's af_font_fit, step for step, so the sums round alike.
	function fitSize1(s, avail) {
		var used = 0, dot = 2 * advance(46), keep = 0, i = 0;
		while (i < s.length) {
			var cp = s.codePointAt(i);
			used += advance(cp);
			if (used > avail) break;
			i += cp > 0xFFFF ? 2 : 1;
			if (used + dot <= avail) keep = i;
		}
		if (i >= s.length) return s;
		return keep ? s.slice(0, keep) + ".." : "";
	}

	// The names that are not plain (font.c shaped them): AF.cuts holds,
	// for the i-th name, the places it may end at (UTF-16 index, width at
	// size 1 of what is before), never inside a character drawn as one.
	var cuts = new Map();
	for (var ci in AF.cuts) cuts.set(AF.names[ci], AF.cuts[ci]);

	// font.c's af_font_fit on the places of a shaped name: the longest
	// prefix that fits with "..", all of it when the last place fits.
	function fitCuts(s, c, avail) {
		var dot = 2 * advance(46), keep = 0, j;
		for (j = 0; j < c.length && c[j + 1] <= avail; j += 2)
			if (c[j + 1] + dot <= avail) keep = c[j];
		if (j >= c.length) return s;
		return keep ? s.slice(0, keep) + ".." : "";
	}

	// The label of a frame `w` px wide, as style.c's af_style_fit makes it.
	function fit(name, w) {
		if (AF.fontwidth > 0) return fitFixed(name, w);
		var c = cuts.get(name);
		return c ? fitCuts(name, c, (w - 6) / AF.fs) : fitSize1(name, (w - 6) / AF.fs);
	}

	// flamegraph.pl's rule, for --fontwidth: a fixed glyph width.
	function fitFixed(name, w) {
		var chars = Math.floor(w / (AF.fs * AF.fontwidth)), all = Array.from(name);
		if (chars < 3) return "";
		if (chars >= all.length) return name;
		return all.slice(0, chars - 2).join("") + "..";
	}

	// printf's "%.Nf": toFixed, except that an exact tie rounds to even as
	// glibc does (toFixed rounds it up), so the text matches the static
	// SVG's titles to the digit.
	function fixed(x, d) {
		var neg = x < 0 || Object.is(x, -0), a = Math.abs(x), s = a.toFixed(d);
		if (a < 1e21) {
			// exact: a double under 1e21 has fewer than 100 digits after the point
			var e = a.toFixed(100), dot = e.indexOf("."), cut = d ? dot + 1 + d : dot;
			if (/^50*$/.test(e.slice(dot + 1 + d)) && +e.charAt(cut - 1) % 2 === 0)
				s = e.slice(0, cut);
		}
		return (neg ? "-" : "") + s;
	}

	// 1234567 -> "1,234,567"
	function grouped(s) {
		return s.replace(/\B(?=(\d{3})+$)/g, ",");
	}

	// style.c's af_style_time: "850 µs", "12.3 ms", "1.23 s".
	function time(us) {
		if (us < 1000) return us + " \u00b5s";
		if (us < 10000) return fixed(us / 1e3, 2) + " ms";
		if (us < 1000000) return fixed(us / 1e3, 1) + " ms";
		if (us < 10000000) return fixed(us / 1e6, 3) + " s";
		return fixed(us / 1e6, 2) + " s";
	}

	// style.c's af_style_bytes: "512 B", "1.50 KiB", "12.3 MiB".
	function bytes(v) {
		var units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"], k = 0;
		if (v < 1023.5) return fixed(v, 0) + " B";
		while (v >= 1024 && k < 6) {
			v /= 1024;
			k++;
		}
		return fixed(v, v < 10 ? 2 : v < 100 ? 1 : 0) + " " + units[k];
	}

	// style.c's af_style_unit_value: bytes, nanoseconds as a time; "" else.
	function amount(x) {
		if (AF.vunit === "bytes") return bytes(x);
		if (AF.vunit === "ns") {
			var us = x / 1000;
			if (x < 999.5) return fixed(x, 0) + " ns";
			if (us < 999.5) return fixed(us, us < 10 ? 2 : us < 100 ? 1 : 0) + " \u00b5s";
			return time(Math.floor(us + 0.5));
		}
		return "";
	}

	// style.c's af_style_value: a time, an amount in the input's unit, or a
	// count with its unit.  Counts with decimals (AF.unit 10^d) show as many
	// as the input has.
	function value(x) {
		if (AF.time) return time(Math.floor(x + 0.5));
		if (AF.vunit) return amount(x);
		var d = 0, u, w, fr;
		for (u = AF.unit; u > 1; u /= 10) d++;
		if (!d) return grouped(fixed(x, 0)) + " " + AF.countname;
		w = Math.floor(x);
		fr = fixed(x - w, d).replace(/0+$/, "");
		return grouped(fixed(w, 0)) + (fr.length > 2 && fr.slice(0, 2) === "0." ? fr.slice(1) : "") +
		       " " + AF.countname;
	}

	// printf's "%+.Nf"
	function signed(x, d) {
		return (x < 0 || Object.is(x, -0) ? "" : "+") + fixed(x, d);
	}

	// style.c's af_change: "12.3 ms → 15.0 ms (+2.7 ms, +22%)".
	function change(b, a) {
		var f = AF.factor, d = a > b ? a - b : b - a;
		var t = value(b * f) + " \u2192 " + value(a * f) + " (" + (a < b ? "-" : "+") +
		        value(d * f) + ", ";
		if (b === 0) return t + (a ? "new" : "+0%") + ")";
		var p = 100 * (a - b) / b;
		return t + signed(p, p <= -10 || p >= 10 ? 0 : 1) + "%)";
	}

	// style.c's af_style_tooltip: "NAME (VALUE, P%, N calls; +D%)", and for
	// a diff of two profiles af_diff_tooltip's "NAME (VALUE, P%, N calls):
	// BEFORE → AFTER (...); self BEFORE → AFTER (...)".
	function tooltip(f) {
		if (AF.cmp) {
			var t = f.name + f.lib + " (" + value(f.v * AF.factor) + ", " +
			        fixed(AF.total ? 100 * f.v / AF.total : 0, 2) + "%";
			if (f.c) t += ", " + grouped(String(f.c)) + " call" + (f.c === 1 ? "" : "s");
			t += "): " + change(f.b, f.a);
			if (f.bs || f.s) t += "; self " + change(f.bs, f.s);
			return t;
		}
		var v = f.v * AF.factor, t, pct = AF.total ? 100 * f.v / AF.total : 0;
		if (AF.time) {
			t = time(Math.floor(v + 0.5));
		} else if (AF.vunit) {
			t = amount(v);
		} else {
			t = fixed(v, 0);
			// flamegraph.pl's share is of the count as shown, rounded
			// (--factor, fractional counts); the root is the whole
			if (f.parent && AF.total) pct = 100 * +t / (AF.total * AF.factor);
			t = grouped(t) + " " + AF.countname;
		}
		t = f.name + f.lib + " (" + t + ", " + fixed(pct, 2) + "%";
		if (f.c) t += ", " + grouped(String(f.c)) + " call" + (f.c === 1 ? "" : "s");
		if (AF.diff && f.dv !== null) {
			// flamegraph.pl's: of the total times the factor, "+" only
			// when it grew
			var d = AF.total ? 100 * (f.dv / AF.unit) / (AF.total * AF.factor) + 0 : 0;
			t += "; " + (d > 0 ? "+" : "") + fixed(d, 2) + "%";
		}
		return t + ")";
	}

	function depthOf(y) {
		var d = AF.inverted ? (y - AF.top) / AF.fh : (AF.bottom - y) / AF.fh;
		return Math.round(d);
	}

	function load() {
		var gs = el("frames").children, stack = [], k = AF.cmp ? 7 : AF.diff ? 4 : 3;
		for (var i = 0; i < gs.length; i++) {
			// --nameattr links wrap a frame in <a>
			var g = gs[i].tagName === "a" ? gs[i].firstElementChild : gs[i];
			var rect = g.firstElementChild, at = i * k, title = null;
			// a --nameattr title is the frame's tooltip, as written
			if (rect.tagName === "title") {
				title = rect;
				rect = rect.nextElementSibling;
			}
			var f = {
				i: i, g: g, rect: rect, title: title,
				tip: title ? title.textContent : null, own: title !== null,
				text: rect.nextElementSibling,
				name: AF.names[AF.frames[at]],
				lib: AF.libs && AF.libs[AF.frames[at]] ? " in " + AF.libs[AF.frames[at]] : "",
				v: AF.frames[at + 1], c: AF.frames[at + 2],
				dv: AF.diff ? AF.frames[at + 3] : 0,
				b: AF.cmp ? AF.frames[at + 3] : 0, a: AF.cmp ? AF.frames[at + 4] : 0,
				bs: AF.cmp ? AF.frames[at + 5] : 0, s: AF.cmp ? AF.frames[at + 6] : 0,
				x: +rect.getAttribute("x"), w: +rect.getAttribute("width"),
				y: +rect.getAttribute("y"),
				h: rect.hasAttribute("height") ? +rect.getAttribute("height") : AF.rh,
				xs: rect.getAttribute("x"), ys: rect.getAttribute("y"),
				fill: rect.getAttribute("fill"), parent: null, end: 0,
				shown: true, faded: false, hit: false
			};
			// the label as written: shown again whenever the frame is back
			// where it was drawn
			f.label0 = f.text ? f.text.textContent : "";
			f.px = f.x;
			f.pw = f.w;
			f.d = depthOf(f.y);
			// f.end: one past the last frame of its subtree
			while (stack.length && stack[stack.length - 1].d >= f.d) stack.pop().end = i;
			f.parent = stack.length ? stack[stack.length - 1] : null;
			stack.push(f);
			g.f = f;
			frames.push(f);
		}
		while (stack.length) stack.pop().end = gs.length;
	}

	// Places a frame at (x, w) and fits its label to the new width.  The
	// DOM is touched only where something changes: with tens of thousands
	// of frames, that is what keeps a zoom quick.
	function place(f, x, w) {
		var xs = num(x), ws = num(w);
		if (xs === f.px && ws === f.pw) return;
		f.px = xs;
		f.pw = ws;
		f.rect.setAttribute("x", xs);
		f.rect.setAttribute("width", ws);
		var label = f.h < AF.fs + 2 ? "" : xs === f.x && ws === f.w ? f.label0 : fit(f.name, w);
		if (!f.text) {
			if (!label) return;
			f.text = document.createElementNS("http://www.w3.org/2000/svg", "text");
			f.text.setAttribute("y", num(f.y + f.h / 2 + 3));
			if (lightLabel(f.hit ? AF.match : f.fill)) f.text.setAttribute("class", "w");
			f.g.appendChild(f.text);
		}
		f.text.setAttribute("x", num(x + 3));
		if (f.text.textContent !== label) f.text.textContent = label;
	}

	// style.c's af_style_label_light: white labels on dark fills, so every
	// label stands out at least 4.5:1 (fill: "#rrggbb")
	function lum(v) {
		v /= 255;
		return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
	}

	function lightLabel(fill) {
		var n = parseInt(fill.slice(1), 16);
		var l = 0.2126 * lum(n >> 16) + 0.7152 * lum((n >> 8) & 255) + 0.0722 * lum(n & 255);
		return 1.05 / (l + 0.05) > (l + 0.05) / 0.05;
	}

	function show(f, on) {
		if (f.shown === on) return;
		f.shown = on;
		f.g.style.display = on ? "" : "none";
	}

	function fade(f, on) {
		if (f.faded === on) return;
		f.faded = on;
		f.g.classList.toggle("parent", on);
	}

	function zoom(f) {
		if (!f || !f.parent) { unzoom(); return; }
		var full = AF.width - 2 * AF.xpad, ratio = full / f.w, end = f.end, i;
		for (i = 0; i < frames.length; i++) {
			var g = frames[i];
			fade(g, false);
			if (i >= f.i && i < end) {
				show(g, true);
				place(g, AF.xpad + (g.x - f.x) * ratio, g.w * ratio);
			} else {
				show(g, false);
			}
		}
		for (var a = f.parent; a; a = a.parent) {
			show(a, true);
			fade(a, true);
			place(a, AF.xpad, full);
		}
		zoomed = f;
		unzoomBtn.classList.remove("hide");
		if (term !== null) search(term);
		saveView();
	}

	function unzoom() {
		for (var i = 0; i < frames.length; i++) {
			var f = frames[i];
			show(f, true);
			fade(f, false);
			place(f, f.x, f.w);
		}
		zoomed = null;
		unzoomBtn.classList.add("hide");
		if (term !== null) search(term);
		saveView();
	}

	// Highlights matching frames and prints the share of the visible graph
	// they hold: the totals of the outermost matches over the total of the
	// zoomed frame (or the root), exact however narrow the frames are.
	function search(t) {
		var re;
		try {
			re = new RegExp(t, ignoreCase ? "i" : "");
		} catch (e) {
			matched.textContent = "Bad pattern: " + e.message;
			reveal(matched);
			return;
		}
		term = t;
		var base = zoomed || frames[0], sum = 0, hits = 0, i;
		for (i = 0; i < frames.length; i++)
			paint(frames[i], re.test(frames[i].name));
		for (i = base.i; i < base.end; ) {
			if (frames[i].hit) {
				sum += frames[i].v;
				hits++;
				i = frames[i].end;
			} else {
				i++;
			}
		}
		var pct = base.v ? 100 * sum / base.v : 0;
		matched.textContent = "Matched: " + (hits ? fixed(pct, 2) : "0") + "%";
		matched.setAttribute("data-pct", pct.toFixed(3));
		searchBtn.textContent = "Reset Search";
		reveal(matched);
		saveView();
	}

	function paint(f, hit) {
		if (f.hit === hit) return;
		f.hit = hit;
		f.rect.setAttribute("fill", hit ? AF.match : f.fill);
		if (f.text) f.text.classList.toggle("w", lightLabel(hit ? AF.match : f.fill));
	}

	function resetSearch() {
		term = null;
		for (var i = 0; i < frames.length; i++)
			paint(frames[i], false);
		matched.textContent = "";
		searchBtn.textContent = "Search";
		saveView();
	}

	function askSearch() {
		if (term !== null) { resetSearch(); return; }
		var t = prompt("Search frames (a regular expression" +
		               (ignoreCase ? ", any case" : "") + "):", "");
		if (t) search(t);
		else matched.textContent = ""; /* a "Bad pattern" of before goes */
	}

	function toggleCase() {
		ignoreCase = !ignoreCase;
		caseBtn.classList.toggle("on", ignoreCase);
		if (term !== null) search(term);
	}

	function tipOf(f) {
		if (f.tip === null) f.tip = tooltip(f);
		// ancestors of the zoomed frame are larger than it: no share of it
		if (f.own || !zoomed || f === zoomed || f.d < zoomed.d) return f.tip;
		var share = zoomed.v ? 100 * f.v / zoomed.v : 0;
		return f.tip.slice(0, -1) + ", " + share.toFixed(2) + "% of " +
		       zoomed.name + ")";
	}

	// The view in the URL: ?x=..&y=.. (the zoomed frame), s= (the search),
	// i=1 (any case).  Values are percent-encoded and read back with
	// decodeURIComponent only, so a '+' someone types stays a '+'.
	function saveView() {
		if (!window.history || !history.replaceState) return;
		var q = [];
		if (zoomed) q.push("x=" + encodeURIComponent(zoomed.xs), "y=" + encodeURIComponent(zoomed.ys));
		if (term !== null) q.push("s=" + encodeURIComponent(term));
		if (ignoreCase) q.push("i=1");
		try {
			history.replaceState(null, "", location.pathname + (q.length ? "?" + q.join("&") : ""));
		} catch (e) { /* some viewers forbid it: the view just is not kept */ }
	}

	function viewParams() {
		var p = {}, parts = location.search.replace(/^\?/, "").split("&");
		for (var i = 0; i < parts.length; i++) {
			if (!parts[i]) continue;
			var eq = parts[i].indexOf("="), k = eq < 0 ? parts[i] : parts[i].slice(0, eq),
			    v = eq < 0 ? "" : parts[i].slice(eq + 1);
			try {
				p[decodeURIComponent(k)] = decodeURIComponent(v);
			} catch (e) {
				p[k] = v; /* a malformed escape: as typed */
			}
		}
		return p;
	}

	function restoreView() {
		var p = viewParams();
		if (p.i === "1") toggleCase();
		if (p.x !== undefined && p.y !== undefined) {
			for (var i = 0; i < frames.length; i++) {
				if (frames[i].xs === p.x && frames[i].ys === p.y) {
					zoom(frames[i]);
					break;
				}
			}
		}
		if (p.s !== undefined && p.s !== "") search(p.s);
	}

	// Scrolls the page the least that brings `node` (or the band from
	// `top` to `bottom`, in page px) into view, up and down only.
	function reveal(node, top, bottom) {
		if (node) {
			var r = node.getBoundingClientRect();
			top = r.top;
			bottom = r.bottom;
		}
		top -= 4; /* and a little room around it */
		bottom += 4;
		if (bottom > window.innerHeight) window.scrollBy(0, Math.min(bottom - window.innerHeight, top));
		else if (top < 0) window.scrollBy(0, top);
	}

	// The details line: as much of `s` as its space holds (left of
	// "Matched"), cut with ".."; the frame's <title> keeps all of it.
	function setDetails(s) {
		var avail = AF.width - 2 * AF.xpad;
		if (matched.textContent) avail -= matched.getComputedTextLength() + AF.fs;
		var t = fitSize1(s, avail / AF.fs);
		details.textContent = t;
		// the viewer may draw with another font than the one measured
		var chars = Array.from(t), w = t ? details.getComputedTextLength() : 0;
		if (w <= avail) return;
		var keep = Math.floor(chars.length * avail / w) - 2;
		for (; keep > 0; keep--) {
			details.textContent = chars.slice(0, keep).join("") + "..";
			if (details.getComputedTextLength() <= avail) return;
		}
		details.textContent = "";
	}

	function button(id, x, y, label, cls) {
		var t = document.createElementNS(NS, "text");
		t.setAttribute("id", id);
		t.setAttribute("x", num(x));
		t.setAttribute("y", num(y));
		if (cls) t.setAttribute("class", cls);
		t.textContent = label;
		svg.insertBefore(t, el("frames"));
		return t;
	}

	function frameOf(node) {
		while (node && node !== svg) {
			if (node.f) return node.f;
			node = node.parentNode;
		}
		return null;
	}

	function start() {
		var line = AF.height - (AF.fs * 2 + 10) / 2;
		unzoomBtn = button("unzoom", AF.xpad, AF.fs * 2, "Reset Zoom", "hide");
		// "Search" and "Reset Search" end short of "ic"
		searchBtn = button("search", AF.width - AF.xpad - 16 - AF.fs / 2, AF.fs * 2, "Search");
		caseBtn = button("ignorecase", AF.width - AF.xpad - 16, AF.fs * 2, "ic");
		details = button("details", AF.xpad, line, " ");
		matched = button("matched", AF.width - AF.xpad, line, "");
		load();
		svg.addEventListener("click", function (e) {
			var f = frameOf(e.target);
			if (f) zoom(f);
		});
		svg.addEventListener("mouseover", function (e) {
			var f = frameOf(e.target);
			if (!f) return;
			var tip = tipOf(f);
			setDetails(AF.nametype ? AF.nametype + " " + tip : tip);
			// the native tooltip: a <title>, made when first needed
			if (!f.title) {
				f.title = document.createElementNS("http://www.w3.org/2000/svg", "title");
				f.g.insertBefore(f.title, f.g.firstChild);
			}
			if (f.title.textContent !== tip) f.title.textContent = tip;
		});
		svg.addEventListener("mouseout", function (e) {
			if (frameOf(e.target)) details.textContent = " ";
		});
		unzoomBtn.addEventListener("click", function (e) { e.stopPropagation(); unzoom(); });
		searchBtn.addEventListener("click", function (e) { e.stopPropagation(); askSearch(); });
		caseBtn.addEventListener("click", function (e) { e.stopPropagation(); toggleCase(); });
		// the key code as flamegraph.pl matches it: "F" with Shift or Caps
		// Lock is still Ctrl-F
		window.addEventListener("keydown", function (e) {
			var key = (e.key || "").toLowerCase(), mod = e.ctrlKey || e.metaKey;
			if (e.key === "F3" || e.keyCode === 114 || (mod && (key === "f" || e.keyCode === 70))) {
				e.preventDefault();
				askSearch();
			} else if (mod && (key === "i" || e.keyCode === 73)) {
				e.preventDefault();
				toggleCase();
			} else if (e.key === "Escape") {
				if (zoomed) unzoom();
				else if (term !== null) resetSearch();
				else matched.textContent = "";
			}
		});
		restoreView();
		// a tall graph opens on its root (and the details line under it)
		if (!AF.inverted && frames.length) {
			var root = frames[0].rect.getBoundingClientRect();
			reveal(null, root.top, root.bottom + AF.fs * 2 + 10);
		}
		window.aflame = { zoom: zoom, unzoom: unzoom, search: search,
		                  resetSearch: resetSearch, frames: frames, tip: tipOf, fit: fit };
	}

	if (document.readyState === "loading")
		window.addEventListener("load", start);
	else
		start();
})();
