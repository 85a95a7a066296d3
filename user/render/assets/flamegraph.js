// SPDX-License-Identifier: GPL-2.0
// Interactivity of flamestat's flame graphs: details, zoom, search, URL.
//
// svg.c writes each frame as <path d="M{x} 0h{width}"/>, exact counts
// (samples, or periods) inside the nested <svg id="frames">, whose viewBox
// maps counts to pixels. Zooming is therefore a viewBox change; only the text labels,
// which live outside in pixels, are redrawn. The frames sit in one <g> per
// depth, then one <g class> per colour ("root", "more" or a colour).
// fsData (written just before this script) has one entry per frame in
// document order in fsData.f: the index of its name in fsData.names, or
// N for a "(N more)" block; for differential graphs fsData.b (samples
// before) and fsData.d (self change). A recording's counts are sampling
// periods: fsData.countns is the CPU time of one count, and fsData.s the
// samples behind each frame's periods, when known. Counts are in units of
// 10^-fsData.decimals (absent: whole counts), as the input had them.
"use strict";
(function () {
	var D = fsData;
	var NS = "http://www.w3.org/2000/svg";
	var svg, frames, labels, details, matched, searchBtn, icBtn, unzoomBtn;
	var tip, tipRect, tipText;
	var F = [];		// frames: {el, x, w, depth, name, kind}
	var maxDepth = 0;
	var view = null;	// the zoomed frame, or null for all
	var term = null;	// the active search, or null
	var ignoreCase = false;

	function byId(id) { return document.getElementById(id); }

	function collect() {
		var rows = frames.children, d, g, i, j, el, m, f, c, k = 0;
		maxDepth = rows.length - 1;
		for (d = 0; d < rows.length; d++) {
			for (g = 0; g < rows[d].children.length; g++) {
				c = rows[d].children[g].getAttribute("class");
				for (j = 0; j < rows[d].children[g].children.length; j++) {
					el = rows[d].children[g].children[j];
					m = /^M(\d+) 0h(\d+)$/.exec(el.getAttribute("d"));
					i = k++;
					f = { el: el, x: +m[1], w: +m[2], depth: d, i: i,
					      kind: c === "root" || c === "more" ? c : "frame" };
					f.name = f.kind === "root" ? "all" :
						f.kind === "more" ? "(" + D.f[i] + " more)" :
						D.names[D.f[i]];
					el.fsFrame = f;
					F.push(f);
				}
			}
		}
	}

	// Units as the input wrote the count, grouped as flamegraph.pl
	// prints numbers: "1,234,567", "0.5". Exact to 2^53.
	var DEC = D.decimals || 0, UNIT = Math.pow(10, DEC);
	function units(v) {
		var s = Math.round(v).toString(), f = "";
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
	function count(v) {
		return units(v * D.factor);
	}

	function pct(v, total) {
		return (100 * v / total).toFixed(2);
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
		if (D.countns)
			parts.push(duration(f.w / UNIT * D.countns));
		if (D.s)
			parts.push(units(D.s[f.i]) + " samples");
		else if (D.countname)
			parts.push(count(f.w) + " " + D.countname);
		parts.push(pct(f.w, D.total) + "%");
		t = f.name + " (" + parts.join(", ");
		if (D.diff) {
			d = D.d[f.i];
			b = D.b[f.i];
			if (D.negate)
				d = -d;
			t += "; self " + signed(pct(d, D.total)) + "%, total " +
				signed(pct((D.negate ? b - f.w : f.w - b), D.total)) + "%";
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

	// Labels for frames wide enough for three characters, cut with "..".
	function drawLabels(vx, vw, scale) {
		var frag = document.createDocumentFragment();
		var cw = D.fontsize * D.fontwidth;
		var top = +frames.getAttribute("y");
		var i, f, left, right, chars, s, t;
		for (i = 0; i < F.length; i++) {
			f = F[i];
			if (f.x + f.w <= vx || f.x >= vx + vw)
				continue;
			left = Math.max(f.x, vx);
			right = Math.min(f.x + f.w, vx + vw);
			chars = Math.floor((right - left) * scale / cw);
			if (chars < 3)
				continue;
			s = f.name;
			if (s.length > chars)
				s = s.slice(0, chars - 2) + "..";
			t = document.createElementNS(NS, "text");
			t.setAttribute("x", (D.xpad + (left - vx) * scale + 3).toFixed(1));
			t.setAttribute("y", (top + rowY(f.depth) + (D.frameheight - 1) / 2 +
					     D.fontsize * 0.35).toFixed(1));
			t.textContent = s;
			frag.appendChild(t);
		}
		while (labels.firstChild)
			labels.removeChild(labels.firstChild);
		labels.appendChild(frag);
	}

	function layout() {
		var W = width(), fw = Math.max(W - 2 * D.xpad, 1);
		var vx = view ? view.x : 0, vw = view ? view.w : D.total;
		frames.setAttribute("width", fw);
		frames.setAttribute("viewBox", vx + " 0 " + vw + " " +
				    frames.getAttribute("height"));
		searchBtn.setAttribute("x", W - D.xpad - 100);
		icBtn.setAttribute("x", W - D.xpad - 16);
		matched.setAttribute("x", W - D.xpad - 100);
		drawLabels(vx, vw, fw / vw);
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
		var i, g;
		if (f.kind === "root") {
			unzoom();
			return;
		}
		view = f;
		for (i = 0; i < F.length; i++) {
			g = F[i];
			g.el.classList.toggle("p", g.depth < f.depth &&
				g.x <= f.x && g.x + g.w >= f.x + f.w);
		}
		unzoomBtn.classList.remove("hide");
		setParam("x", f.x);
		setParam("y", f.depth);
		layout();
	}

	function unzoom() {
		var i;
		view = null;
		for (i = 0; i < F.length; i++)
			F[i].el.classList.remove("p");
		unzoomBtn.classList.add("hide");
		setParam("x", null);
		setParam("y", null);
		layout();
	}

	// Share of the view under matching frames. Matches nested in matches
	// would count twice, so the intervals are merged first.
	function runSearch() {
		var re, i, f, spans = [], vx, vw, sum = 0, end = -1, a, b, p;
		try {
			re = new RegExp(term, ignoreCase ? "i" : "");
		} catch (e) {
			matched.textContent = "Bad regular expression";
			matched.classList.remove("hide");
			return;
		}
		vx = view ? view.x : 0;
		vw = view ? view.w : D.total;
		for (i = 0; i < F.length; i++) {
			f = F[i];
			if (f.kind === "frame" && re.test(f.name)) {
				f.el.classList.add("m");
				a = Math.max(f.x, vx);
				b = Math.min(f.x + f.w, vx + vw);
				if (b > a)
					spans.push([a, b]);
			} else {
				f.el.classList.remove("m");
			}
		}
		spans.sort(function (s, t) { return s[0] - t[0] || t[1] - s[1]; });
		for (i = 0; i < spans.length; i++) {
			a = Math.max(spans[i][0], end);
			if (spans[i][1] > a)
				sum += spans[i][1] - a;
			end = Math.max(end, spans[i][1]);
		}
		p = 100 * sum / vw;
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

	function frameOf(evt) {
		var t = evt.target;
		return t && t.fsFrame ? t.fsFrame : null;
	}

	function restore() {
		var p = getParams(), x, y, i;
		if (p.get("i") === "1") {
			ignoreCase = true;
			icBtn.classList.add("show");
		}
		if (p.has("x") && p.has("y")) {
			x = +p.get("x");
			y = +p.get("y");
			for (i = 0; i < F.length; i++) {
				if (F[i].x === x && F[i].depth === y) {
					zoom(F[i]);
					break;
				}
			}
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

	// Exposed for scripted use and the browser test.
	window.flamestat = {
		search: search, resetSearch: resetSearch, zoom: function (x, y) {
			for (var i = 0; i < F.length; i++)
				if (F[i].x === x && F[i].depth === y)
					return zoom(F[i]);
		}, unzoom: unzoom
	};

	if (document.readyState === "loading")
		window.addEventListener("DOMContentLoaded", init);
	else
		init();
})();
