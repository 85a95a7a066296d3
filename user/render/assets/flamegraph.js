// SPDX-License-Identifier: GPL-2.0
// Interactivity of flamestat's flame graphs: details, zoom, search, URL.
//
// svg.c writes each frame as <path d="M{x} 0h{width}"/> (with
// --stroke-color a box, "M{x} {top}h{width}v{height}h-{width}z", see
// pathD) inside the nested
// <svg id="frames">, whose viewBox maps frame units to pixels: the counts
// (samples, or periods) themselves when the total is at most 2^24, else
// the counts scaled to 2^24 units, with the exact x and width of each
// frame in fsData.x and fsData.w. Browsers paint path coordinates in
// float32, exact for integers up to 2^24 only, so no coordinate the file
// or this script writes is larger. For the same reason zooming does not
// narrow the viewBox (x * scale - vx * scale in float32 cancels: frames
// off by pixels at 1e8 counts, gone at 1e10): the visible frames get new
// coordinates relative to the view, 2^24 units across, computed from the
// exact counts, ancestors clipped to the view, and every other frame is
// left out of it (see drawView); unzoom puts the file's own coordinates
// back. The text labels, which live outside in pixels, are redrawn from
// the exact counts too.
// The frames sit in one <g> per depth, then one <g class> per colour
// ("root", "more" or a colour). fsData (written just before this script)
// has one entry per frame in document order in fsData.f: the index of its
// name in fsData.names, or N for a "(N more)" block; for differential
// graphs fsData.b (samples before) and fsData.d (self change). A
// recording's counts are sampling periods: fsData.countns is the CPU time
// of one count, and fsData.s the samples behind each frame's periods, when
// known. Counts past 2^53 (up to 2^64 - 1), which a number does not hold,
// are decimal strings; the script then keeps every position as a BigInt,
// so that differences of positions, the view's offsets, stay exact.
// Counts are in units of 10^-fsData.decimals (absent: whole counts), as
// the input wrote them.
"use strict";
(function () {
	var D = fsData;
	var NS = "http://www.w3.org/2000/svg";
	var svg, frames, labels, details, matched, searchBtn, icBtn, unzoomBtn;
	var tip, tipRect, tipText;
	var F = [];		// frames: {el, x, w, sx, sw, depth, name, kind}
	var maxDepth = 0;
	var view = null;	// the zoomed frame, or null for all
	var shown = [];		// frames drawn relative to the view
	var term = null;	// the active search, or null
	var ignoreCase = false;
	// Exact counts: numbers up to 2^53, BigInts when the total is beyond
	// (and the browser has them; else numbers, close enough to draw).
	var big = typeof D.total === "string" && typeof BigInt === "function";
	var ZOOM = 16777216;	// units across a zoomed view: 2^24, see above
	// An outline (--stroke-color) reaches half a pixel past its box, so
	// the outlines of frames left at x = 0 would show at the right edge
	// of a view ending at 0: with outlines the view ends GAP units (about
	// 70 px) before 0. Float32 spacing there is 2 units, 1/7000 px.
	var GAP = D.box ? 1048576 : 0;
	var total, zero, staticBox;

	function byId(id) { return document.getElementById(id); }

	// An exact count from fsData or a decimal string, or null.
	function count(v) {
		if (typeof v === "string" && !/^[0-9]+$/.test(v))
			return null;
		return big ? BigInt(v) : +v;
	}

	// a - b, both exact counts, as a number: exact, or (beyond 2^53) the
	// nearest double of the exact difference, never of the operands.
	function sub(a, b) {
		return Number(a - b);
	}

	function collect() {
		var rows = frames.children, d, g, i, j, el, m, f, c, k = 0;
		maxDepth = rows.length - 1;
		total = count(D.total);
		zero = count(0);
		staticBox = frames.getAttribute("viewBox");
		for (d = 0; d < rows.length; d++) {
			for (g = 0; g < rows[d].children.length; g++) {
				c = rows[d].children[g].getAttribute("class");
				for (j = 0; j < rows[d].children[g].children.length; j++) {
					el = rows[d].children[g].children[j];
					m = /^M(\d+) [-0-9.]+h(\d+)/.exec(el.getAttribute("d"));
					i = k++;
					// sx, sw: the file's coordinates; x, w: counts.
					f = { el: el, sx: +m[1], sw: +m[2], depth: d, i: i,
					      kind: c === "root" || c === "more" ? c : "frame" };
					f.x = D.x ? count(D.x[i]) : count(f.sx);
					f.w = D.w ? count(D.w[i]) : count(f.sw);
					f.end = f.x + f.w;
					f.name = f.kind === "root" ? "all" :
						f.kind === "more" ? "(" + D.f[i] + " more)" :
						D.names[D.f[i]];
					el.fsFrame = f;
					F.push(f);
				}
			}
		}
	}

	// Units as the input wrote the count, grouped as flamegraph.pl prints
	// numbers: "1,234,567", "0.5". v is an exact count (number, BigInt or
	// decimal string) or a product of one.
	var DEC = D.decimals || 0, UNIT = Math.pow(10, DEC);
	function units(v) {
		var s, f = "";
		if (typeof v !== "number")
			s = String(v);
		else if (v >= 1e21 && typeof BigInt === "function")
			s = BigInt(Math.round(v)).toString();	// not "1e+21"
		else
			s = Math.round(v).toString();
		if (!/^\d+$/.test(s))
			return s;
		if (DEC) {
			while (s.length <= DEC)
				s = "0" + s;
			f = s.slice(s.length - DEC).replace(/0+$/, "");
			s = s.slice(0, s.length - DEC);
		}
		return s.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (f ? "." + f : "");
	}

	// A frame's count times --factor, to as many decimals as the input's.
	function countText(v) {
		return units(D.factor === 1 ? v : Number(v) * D.factor);
	}

	function pct(v, t) {
		return (100 * Number(v) / Number(t)).toFixed(2);
	}

	function signed(s) {
		return s.charAt(0) === "-" ? s : "+" + s;
	}

	// CPU time, from nanoseconds.
	function duration(ns) {
		if (ns >= 1e9)
			return (ns / 1e9).toFixed(2) + " s";
		if (ns >= 1e6)
			return (ns / 1e6).toFixed(2) + " ms";
		return (ns / 1e3).toFixed(1) + " \u00b5s";
	}

	// "name (30.00 ms, 10 samples, 75.00%)", or flamegraph.pl's
	// "name (10 samples, 75.00%)" for counts that are not time.
	function describe(f) {
		var parts = [], t, d, b;
		if (f.title !== undefined)
			return f.title;
		if (D.countns)
			parts.push(duration(Number(f.w) / UNIT * D.countns));
		if (D.s)
			parts.push(units(D.s[f.i]) + " samples");
		else if (D.countname)
			parts.push(countText(f.w) + " " + D.countname);
		parts.push(pct(f.w, total) + "%");
		t = f.name + " (" + parts.join(", ");
		if (D.diff) {
			d = Number(D.d[f.i]);
			b = Number(D.b[f.i]);
			if (D.negate)
				d = -d;
			t += "; self " + signed(pct(d, total)) + "%, total " +
				signed(pct((D.negate ? b - Number(f.w) : Number(f.w) - b),
					   total)) + "%";
		}
		return t + ")";
	}

	function width() {
		if (!D.fluid)
			return D.width;
		return svg.getBoundingClientRect().width || D.width;
	}

	function rowY(depth) {
		return (D.inverted ? depth : maxDepth - depth) * D.frameheight;
	}

	// Where f is in the view, as fractions of its width, clipped to it.
	function span(f, vx, vw) {
		return [Math.max(sub(f.x, vx) / vw, 0), Math.min(sub(f.end, vx) / vw, 1)];
	}

	// Labels for frames wide enough for three characters, cut with "..".
	// Pixel positions come from the exact counts, relative to the view.
	function drawLabels(fw) {
		var frag = document.createDocumentFragment();
		var cw = D.fontsize * D.fontwidth;
		var top = +frames.getAttribute("y");
		var list = view ? shown : F;
		var vx = view ? view.x : zero, vw = Number(view ? view.w : total);
		var i, f, sp, chars, s, t;
		for (i = 0; i < list.length; i++) {
			f = list[i];
			sp = span(f, vx, vw);
			chars = Math.floor((sp[1] - sp[0]) * fw / cw);
			if (chars < 3)
				continue;
			s = f.name;
			if (s.length > chars)
				s = D.truncleft ? ".." + s.slice(s.length - chars + 2) :
					s.slice(0, chars - 2) + "..";
			t = document.createElementNS(NS, "text");
			t.setAttribute("x", (D.xpad + sp[0] * fw + 3).toFixed(1));
			t.setAttribute("y", (top + rowY(f.depth) + (D.frameheight - 1) / 2 +
					     D.fontsize * 0.35).toFixed(1));
			t.textContent = s;
			frag.appendChild(t);
		}
		while (labels.firstChild)
			labels.removeChild(labels.firstChild);
		labels.appendChild(frag);
	}

	// A frame's path at x, w wide: a line along the row's middle, or with
	// --stroke-color (fsData.box: top and height) a box to outline.
	function pathD(x, w) {
		if (D.box)
			return "M" + x + " " + D.box[0] + "h" + w + "v" + D.box[1] +
				"h-" + w + "z";
		return "M" + x + " 0h" + w;
	}

	// The zoomed view: the frame, its descendants and its ancestors
	// (clipped to it) get coordinates relative to the view, ZOOM units
	// across, so they need no rewriting when the window is resized.
	// Positions are differences of exact counts, so a frame a billionth
	// of the total lands as exactly as one that is half of it. The view
	// is -ZOOM to 0 (-GAP): every other frame keeps the file's coordinates, all
	// at 0 or more, right of the view, where the nested <svg> clips them
	// (neither drawn nor hoverable). Hiding them instead (display: none)
	// restyles every frame, seconds for 100,000 of them.
	function drawView() {
		var i, g, a, b, vx = view.x, vend = view.end, vw = Number(view.w);
		clearView();
		for (i = 0; i < F.length; i++) {
			g = F[i];
			if (g.depth < view.depth) {
				if (g.x > vx || g.end < vend)
					continue;
				a = -ZOOM - GAP;
				b = -GAP;
				g.el.classList.add("p");
			} else if (g.x >= vx && g.end <= vend) {
				a = Math.round(sub(g.x, vx) / vw * ZOOM) - ZOOM - GAP;
				b = Math.round(sub(g.end, vx) / vw * ZOOM) - ZOOM - GAP;
			} else {
				continue;
			}
			g.el.setAttribute("d", pathD(a, b - a));
			shown.push(g);
		}
		frames.setAttribute("viewBox", (-ZOOM - GAP) + " 0 " + ZOOM + " " +
				    frames.getAttribute("height"));
	}

	// Back to the file's own coordinates.
	function clearView() {
		var i, g;
		for (i = 0; i < shown.length; i++) {
			g = shown[i];
			g.el.setAttribute("d", pathD(g.sx, g.sw));
			g.el.classList.remove("p");
		}
		shown = [];
		frames.setAttribute("viewBox", staticBox);
	}

	function layout() {
		var W = width(), fw = Math.max(W - 2 * D.xpad, 1);
		frames.setAttribute("width", fw);
		searchBtn.setAttribute("x", W - D.xpad - 100);
		icBtn.setAttribute("x", W - D.xpad - 16);
		matched.setAttribute("x", W - D.xpad - 100);
		drawLabels(fw);
		if (term !== null)
			runSearch();
	}

	// URL state: ?s=regex&i=1&x=start&y=depth reproduces the view.
	function getParams() {
		return new URLSearchParams(window.location.search);
	}

	function setParam(k, v) {
		var p = getParams(), q;
		if (v === null)
			p.delete(k);
		else
			p.set(k, v);
		q = p.toString();
		try {
			history.replaceState(null, "", q ? "?" + q :
				window.location.pathname + window.location.hash);
		} catch (e) {
			// Some viewers (data: URLs) refuse; the view still works.
		}
	}

	function zoom(f) {
		if (f.kind === "root") {
			unzoom();
			return;
		}
		view = f;
		drawView();
		unzoomBtn.classList.remove("hide");
		setParam("x", String(f.x));	// exact, also as a BigInt
		setParam("y", f.depth);
		layout();
	}

	// The frame at x (an exact count, or its decimal string) and depth y.
	function frameAt(x, y) {
		var i;
		x = count(String(x));
		y = +y;
		if (x === null)
			return null;
		for (i = 0; i < F.length; i++)
			if (F[i].x === x && F[i].depth === y)
				return F[i];
		return null;
	}

	function unzoom() {
		view = null;
		clearView();
		unzoomBtn.classList.add("hide");
		setParam("x", null);
		setParam("y", null);
		layout();
	}

	// Share of the view under matching frames. Matches nested in matches
	// would count twice, so the intervals are merged first. Sums of exact
	// counts: the share is right however deep the view.
	function runSearch() {
		var re, i, f, spans = [], vx, vend, sum = zero, end, a, b, p;
		try {
			re = new RegExp(term, ignoreCase ? "i" : "");
		} catch (e) {
			matched.textContent = "Bad regular expression";
			matched.classList.remove("hide");
			return;
		}
		vx = view ? view.x : zero;
		vend = view ? view.end : total;
		for (i = 0; i < F.length; i++) {
			f = F[i];
			if (f.kind === "frame" && re.test(f.name)) {
				f.el.classList.add("m");
				a = f.x > vx ? f.x : vx;
				b = f.end < vend ? f.end : vend;
				if (b > a)
					spans.push([a, b]);
			} else {
				f.el.classList.remove("m");
			}
		}
		// Compared, not subtracted: BigInts do not mix with numbers.
		spans.sort(function (s, t) {
			return s[0] < t[0] ? -1 : s[0] > t[0] ? 1 :
				s[1] > t[1] ? -1 : s[1] < t[1] ? 1 : 0;
		});
		end = vx;
		for (i = 0; i < spans.length; i++) {
			a = spans[i][0] > end ? spans[i][0] : end;
			if (spans[i][1] > a)
				sum += spans[i][1] - a;
			if (spans[i][1] > end)
				end = spans[i][1];
		}
		p = 100 * Number(sum) / Number(vend - vx);
		matched.textContent = "Matched: " + (p === 100 ? "100" : p.toFixed(1)) + "%";
		matched.classList.remove("hide");
		searchBtn.textContent = "Reset Search";
		searchBtn.classList.add("show");
	}

	function search(t) {
		term = t;
		setParam("s", t);
		runSearch();
	}

	function resetSearch() {
		var i;
		term = null;
		for (i = 0; i < F.length; i++)
			F[i].el.classList.remove("m");
		matched.classList.add("hide");
		searchBtn.textContent = "Search";
		searchBtn.classList.remove("show");
		setParam("s", null);
	}

	function searchPrompt() {
		var t;
		if (term !== null) {
			resetSearch();
			return;
		}
		t = window.prompt("Search for a regular expression (e.g. ^ext4_)" +
			(ignoreCase ? ", ignoring case" : "") +
			"; Ctrl-I toggles case", "");
		if (t)
			search(t);
	}

	function toggleIgnoreCase() {
		ignoreCase = !ignoreCase;
		icBtn.classList.toggle("show", ignoreCase);
		setParam("i", ignoreCase ? "1" : null);
		if (term !== null)
			runSearch();
	}

	function showTip(evt, text) {
		var pt = svg.createSVGPoint(), m = svg.getScreenCTM(), W, bb, x, y;
		details.textContent = D.nametype + " " + text;
		tipText.textContent = text;
		tip.classList.remove("hide");
		if (!m)
			return;
		pt.x = evt.clientX;
		pt.y = evt.clientY;
		pt = pt.matrixTransform(m.inverse());
		bb = tipText.getBBox();
		W = D.fluid ? width() : D.width;
		x = pt.x + 12;
		y = pt.y + 20;
		if (x + bb.width + 8 > W)
			x = Math.max(0, pt.x - bb.width - 12);
		tipText.setAttribute("x", x + 4);
		tipText.setAttribute("y", y + D.fontsize);
		tipRect.setAttribute("x", x);
		tipRect.setAttribute("y", y);
		tipRect.setAttribute("width", bb.width + 8);
		tipRect.setAttribute("height", D.fontsize + 8);
	}

	function hideTip() {
		details.textContent = " ";
		tip.classList.add("hide");
	}

	function makeTip() {
		tip = document.createElementNS(NS, "g");
		tip.setAttribute("id", "tip");
		tip.setAttribute("class", "hide");
		tipRect = document.createElementNS(NS, "rect");
		tipText = document.createElementNS(NS, "text");
		tip.appendChild(tipRect);
		tip.appendChild(tipText);
		svg.appendChild(tip);
	}

	// --nameattr, as flamegraph.pl applies it to a frame's <g>: title
	// replaces the details text; id, class and g_extra's attributes go on
	// the frame; href wraps it in a link (with target and a_extra's), which
	// a click follows and a Ctrl-click zooms instead.
	function setAttrs(el, pairs) {
		var k, n;
		for (k = 0; k < pairs.length; k++) {
			n = pairs[k][0];
			if (n === "class")
				el.setAttribute("class", ((el.getAttribute("class") || "") +
					" " + pairs[k][1]).trim());
			else if (n.indexOf("xlink:") === 0)
				el.setAttributeNS("http://www.w3.org/1999/xlink", n, pairs[k][1]);
			else
				el.setAttribute(n, pairs[k][1]);
		}
	}

	function applyAttrs() {
		var i, f, A, a;
		if (!D.attrs)
			return;
		for (i = 0; i < F.length; i++) {
			f = F[i];
			A = f.kind === "frame" ? D.attrs[D.f[f.i]] : undefined;
			if (!A)
				continue;
			if (A.title !== undefined)
				f.title = A.title;
			setAttrs(f.el, A.g);
			if (A.href === undefined)
				continue;
			a = document.createElementNS(NS, "a");
			a.setAttribute("href", A.href);
			a.setAttributeNS("http://www.w3.org/1999/xlink", "xlink:href", A.href);
			a.setAttribute("target", A.target);
			setAttrs(a, A.a);
			f.el.parentNode.insertBefore(a, f.el);
			a.appendChild(f.el);
			f.link = a;
		}
	}

	function frameOf(evt) {
		var t = evt.target;
		return t && t.fsFrame ? t.fsFrame : null;
	}

	function restore() {
		var p = getParams(), f;
		if (p.get("i") === "1") {
			ignoreCase = true;
			icBtn.classList.add("show");
		}
		if (p.has("x") && p.has("y")) {
			f = frameAt(p.get("x"), p.get("y"));
			if (f)
				zoom(f);
		}
		if (p.get("s"))
			search(p.get("s"));
	}

	function init() {
		svg = byId("flamegraph");
		frames = byId("frames");
		labels = byId("labels");
		details = byId("details");
		matched = byId("matched");
		searchBtn = byId("search");
		icBtn = byId("ignorecase");
		unzoomBtn = byId("unzoom");
		collect();
		applyAttrs();
		makeTip();
		if (D.fluid) {
			svg.removeAttribute("viewBox");
			svg.setAttribute("width", "100%");
			window.addEventListener("resize", layout);
		}
		frames.addEventListener("mouseover", function (e) {
			var f = frameOf(e);
			if (f)
				showTip(e, describe(f));
		});
		frames.addEventListener("mousemove", function (e) {
			var f = frameOf(e);
			if (f)
				showTip(e, describe(f));
		});
		frames.addEventListener("mouseout", hideTip);
		frames.addEventListener("click", function (e) {
			var f = frameOf(e);
			if (f && f.link) {
				if (!e.ctrlKey)
					return;
				e.preventDefault();
			}
			if (f)
				zoom(f);
		});
		unzoomBtn.addEventListener("click", unzoom);
		searchBtn.addEventListener("click", searchPrompt);
		icBtn.addEventListener("click", toggleIgnoreCase);
		window.addEventListener("keydown", function (e) {
			if (e.key === "F3" || ((e.ctrlKey || e.metaKey) &&
			    (e.key === "f" || e.key === "F"))) {
				e.preventDefault();
				searchPrompt();
			} else if (e.ctrlKey && (e.key === "i" || e.key === "I")) {
				e.preventDefault();
				toggleIgnoreCase();
			} else if (e.key === "Escape" && view) {
				unzoom();
			}
		});
		restore();
		layout();
	}

	// Exposed for scripted use and the browser test. zoom(x, y): the
	// frame at count x (a number, or a decimal string, exact past 2^53)
	// and depth y.
	window.flamestat = {
		search: search, resetSearch: resetSearch, zoom: function (x, y) {
			var f = frameAt(x, y);
			if (f)
				zoom(f);
		}, unzoom: unzoom
	};

	if (document.readyState === "loading")
		window.addEventListener("DOMContentLoaded", init);
	else
		init();
})();
