// flame.js - the script embedded in aflame-render's SVG: zoom, search,
// details and tooltips on hover, and the view kept in the URL.  svg.c
// prepends "var AF = {...};" with the image's geometry, the font's advance
// widths, how values print, the table of names and the frames' data.
//
// Frames are written in pre-order (a frame, then its children left to
// right), each as <g><rect/><text/></g> (the text only when a label fits),
// so the tree is rebuilt here from the order and each frame's depth: no
// float comparison decides who is whose parent.  AF.frames holds, for the
// i-th frame, the index of its name in AF.names, its total and its calls
// (and with AF.diff its change): the tooltip is built from them here,
// unless --nameattr gave the frame a title (then <g><title/><rect/>...).
"use strict";
(function () {
	var svg = document.documentElement;
	var frames = [];
	var zoomed = null, term = null, ignoreCase = false;
	var details, matched, unzoomBtn, searchBtn, caseBtn;

	function el(id) { return document.getElementById(id); }

	function num(v) { return Math.round(v * 10) / 10; }

	// Advance of a code point at size 1, from the font the C side measured.
	function advance(cp) {
		if (cp >= 32 && cp < 127) return AF.cw[cp - 32];
		return cp >= 0x1100 ? AF.wide : AF.other;
	}

	// The rule svg.c follows: the whole name, else the longest prefix of
	// whole characters with "..", else nothing.
	function fit(name, avail) {
		if (AF.fontwidth > 0) return fitFixed(name, avail + 6);
		var s = AF.fs, w = 0, dots = 2 * advance(46) * s, keep = 0, i = 0;
		while (i < name.length) {
			var cp = name.codePointAt(i);
			w += advance(cp) * s;
			if (w > avail) break;
			i += cp > 0xFFFF ? 2 : 1;
			if (w + dots <= avail) keep = i;
		}
		if (i >= name.length) return name;
		return keep ? name.slice(0, keep) + ".." : "";
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

	// style.c's af_style_tooltip: "NAME (VALUE, P%, N calls; +D%)".
	function tooltip(f) {
		var value = f.v * AF.factor, t;
		if (AF.time) t = time(Math.floor(value + 0.5));
		else t = grouped(fixed(value, 0)) + " " + AF.countname;
		t = f.name + " (" + t + ", " + fixed(AF.total ? 100 * f.v / AF.total : 0, 2) + "%";
		if (f.c) t += ", " + f.c + " call" + (f.c === 1 ? "" : "s");
		if (AF.diff) {
			var d = AF.total ? 100 * f.dv / AF.total : 0;
			t += "; " + (d < 0 || Object.is(d, -0) ? "" : "+") + fixed(d, 2) + "%";
		}
		return t + ")";
	}

	function depthOf(y) {
		var d = AF.inverted ? (y - AF.top) / AF.fh : (AF.bottom - y) / AF.fh;
		return Math.round(d);
	}

	function load() {
		var gs = el("frames").children, stack = [], k = AF.diff ? 4 : 3;
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
				v: AF.frames[at + 1], c: AF.frames[at + 2],
				dv: AF.diff ? AF.frames[at + 3] : 0,
				x: +rect.getAttribute("x"), w: +rect.getAttribute("width"),
				y: +rect.getAttribute("y"),
				h: rect.hasAttribute("height") ? +rect.getAttribute("height") : AF.rh,
				xs: rect.getAttribute("x"), ys: rect.getAttribute("y"),
				fill: rect.getAttribute("fill"), parent: null,
				shown: true, faded: false, hit: false
			};
			f.px = f.x;
			f.pw = f.w;
			f.d = depthOf(f.y);
			while (stack.length && stack[stack.length - 1].d >= f.d) stack.pop();
			f.parent = stack.length ? stack[stack.length - 1] : null;
			stack.push(f);
			g.f = f;
			frames.push(f);
		}
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
		var label = fit(f.name, w - 6);
		if (!f.text) {
			if (!label) return;
			f.text = document.createElementNS("http://www.w3.org/2000/svg", "text");
			f.text.setAttribute("y", num(f.y + f.h / 2 + 3));
			f.g.appendChild(f.text);
		}
		f.text.setAttribute("x", num(x + 3));
		if (f.text.textContent !== label) f.text.textContent = label;
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
		var full = AF.width - 2 * AF.xpad, ratio = full / f.w, end = f.i + 1, i;
		while (end < frames.length && frames[end].d > f.d) end++;
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
	// they cover, counting each stretch of x once.
	function search(t) {
		var re;
		try {
			re = new RegExp(t, ignoreCase ? "i" : "");
		} catch (e) {
			matched.textContent = "Bad pattern: " + e.message;
			return;
		}
		term = t;
		var base = zoomed || frames[0], lo = base.i, end = lo + 1, spans = [];
		while (end < frames.length && frames[end].d > base.d) end++;
		for (var i = 0; i < frames.length; i++) {
			var f = frames[i], hit = re.test(f.name);
			paint(f, hit);
			if (hit && i >= lo && i < end) spans.push([f.x, f.x + f.w]);
		}
		spans.sort(function (a, b) { return a[0] - b[0]; });
		var covered = 0, reach = -Infinity;
		for (var k = 0; k < spans.length; k++) {
			var s = Math.max(spans[k][0], reach);
			if (spans[k][1] > s) covered += spans[k][1] - s;
			reach = Math.max(reach, spans[k][1]);
		}
		var pct = 100 * covered / base.w;
		matched.textContent = "Matched: " + (spans.length ? pct.toFixed(1) : "0") + "%";
		matched.setAttribute("data-pct", pct.toFixed(3));
		searchBtn.textContent = "Reset Search";
		saveView();
	}

	function paint(f, hit) {
		if (f.hit === hit) return;
		f.hit = hit;
		f.rect.setAttribute("fill", hit ? AF.match : f.fill);
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

	function saveView() {
		if (!window.history || !history.replaceState) return;
		var p = new URLSearchParams();
		if (zoomed) { p.set("x", zoomed.xs); p.set("y", zoomed.ys); }
		if (term !== null) p.set("s", term);
		if (ignoreCase) p.set("i", "1");
		var q = p.toString();
		try {
			history.replaceState(null, "", location.pathname + (q ? "?" + q : ""));
		} catch (e) { /* some viewers forbid it: the view just is not kept */ }
	}

	function restoreView() {
		var p = new URLSearchParams(location.search);
		if (p.get("i") === "1") toggleCase();
		if (p.has("x") && p.has("y")) {
			for (var i = 0; i < frames.length; i++) {
				if (frames[i].xs === p.get("x") && frames[i].ys === p.get("y")) {
					zoom(frames[i]);
					break;
				}
			}
		}
		if (p.has("s")) search(p.get("s"));
	}

	function frameOf(node) {
		while (node && node !== svg) {
			if (node.f) return node.f;
			node = node.parentNode;
		}
		return null;
	}

	function start() {
		details = el("details");
		matched = el("matched");
		unzoomBtn = el("unzoom");
		searchBtn = el("search");
		caseBtn = el("ignorecase");
		load();
		svg.addEventListener("click", function (e) {
			var f = frameOf(e.target);
			if (f) zoom(f);
		});
		svg.addEventListener("mouseover", function (e) {
			var f = frameOf(e.target);
			if (!f) return;
			var tip = tipOf(f);
			details.textContent = AF.nametype ? AF.nametype + " " + tip : tip;
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
		window.addEventListener("keydown", function (e) {
			if (e.key === "F3" || ((e.ctrlKey || e.metaKey) && e.key === "f")) {
				e.preventDefault();
				askSearch();
			} else if ((e.ctrlKey || e.metaKey) && e.key === "i") {
				e.preventDefault();
				toggleCase();
			} else if (e.key === "Escape") {
				if (zoomed) unzoom(); else if (term !== null) resetSearch();
			}
		});
		restoreView();
		window.aflame = { zoom: zoom, unzoom: unzoom, search: search,
		                  resetSearch: resetSearch, frames: frames, tip: tipOf };
	}

	if (document.readyState === "loading")
		window.addEventListener("load", start);
	else
		start();
})();
