// SPDX-License-Identifier: GPL-2.0
// Drives Debian's chromium through playwright-core over flamestat SVGs:
// tooltip, search (Ctrl-F, case toggle, Matched %), click zoom, URL state,
// reset, fluid width, differential colours; and large totals (up to
// 2^64 - 1) drawn where their exact counts put them, statically and live,
// zoomed deep, after Escape, F3, a resize and a reload, in the flame graph,
// icicle and flame chart layouts (bigChecks). Prints PASS/FAIL lines for
// tests/run and saves screenshots.
//
// node flamegraph-test.js CASES.json OUTDIR
// CASES.json: {"graph": {"svg":..., "folded":..., "search":..., "zoom":...},
//              "diff": {"svg":..., "grew":..., "shrank":...},
//              "details": [{"name":..., "svg":..., "frame":..., "want":...}],
//              "big": [{"name":..., "svg":..., "folded":..., "zoom": NAME,
//                       "chart", "inverted", "total": "N" (as the options),
//                       "details"/"zoomDetails": [NAME, WANT],
//                       "search": [REGEX, "PERCENT"]}],
//              "options": {"nameattr":..., "right":..., "left":..., "zoom":...,
//                          "nojs":...},
//              "stroke": {"svg":..., "frames": [NAME...], "zoom": NAME,
//                         "children": [NAME...]}}
"use strict";
const fs = require("fs");
const path = require("path");
const { chromium } = require("playwright-core");

const cases = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const outdir = process.argv[3];
let failures = 0;

function pass(name) { console.log("PASS " + name); }
function fail(name, why) {
	failures++;
	console.log("FAIL " + name + ": " + String(why).replace(/\n/g, " | "));
}
function check(name, ok, why) { ok ? pass(name) : fail(name, why); }

// The share of samples under frames matching re, each stack counted once:
// what "Matched: X%" must show for the whole graph.
function expectedShare(folded, re) {
	let total = 0, hit = 0;
	for (const line of fs.readFileSync(folded, "utf8").split("\n")) {
		const m = /^(.*\S)\s+(\d+)$/.exec(line);
		if (!m || line.startsWith("#"))
			continue;
		const n = +m[2];
		total += n;
		const frames = m[1].split(";").map(f => f.replace(/_\[[kijw]\]$/, ""));
		if (frames.some(f => re.test(f)))
			hit += n;
	}
	const p = 100 * hit / total;
	return p === 100 ? "100" : p.toFixed(1);
}

// The widest frame named NAME on the page: its centre on screen and its
// layout (x, depth, width), or null when there is none.
function widestFrame(page, name) {
	return page.evaluate(n => {
		const r = [...document.querySelectorAll("#frames path")]
			.filter(e => e.fsFrame && e.fsFrame.name === n)
			.sort((a, b) => b.fsFrame.w - a.fsFrame.w)[0];
		if (!r)
			return null;
		const b = r.getBoundingClientRect();
		return { x: b.x + b.width / 2, y: b.y + b.height / 2,
			 fx: r.fsFrame.x, depth: r.fsFrame.depth, w: r.fsFrame.w };
	}, name);
}

async function graphChecks(ctx, c) {
	const page = await ctx.newPage();
	await page.setViewportSize({ width: 1500, height: 900 });
	const errors = [];
	page.on("pageerror", e => errors.push(e.message));
	page.on("console", m => { if (m.type() === "error") errors.push(m.text()); });
	const url = "file://" + path.resolve(c.svg);
	await page.goto(url);
	await page.waitForFunction(() => window.flamestat !== undefined);

	const w = await page.evaluate(() =>
		document.getElementById("flamegraph").getBoundingClientRect().width);
	check("browser-fluid-width", Math.abs(w - 1500) < 2,
	      "SVG is " + w + " px wide in a 1500 px window");
	const nlabels = await page.locator("#labels text").count();
	check("browser-labels", nlabels > 3, nlabels + " labels drawn");

	// Hover the frame named c.zoom: details bar and tooltip.
	const box = await widestFrame(page, c.zoom);
	if (!box) {
		fail("browser-find-frame", "no frame named " + c.zoom);
		await page.close();
		return;
	}
	await page.mouse.move(box.x, box.y);
	const det = await page.locator("#details").textContent();
	check("browser-hover-details",
	      det.startsWith("Function: " + c.zoom + " (") && /samples, [0-9.]+%\)$/.test(det),
	      "details bar says '" + det + "'");
	const tipShown = await page.evaluate(() =>
		!document.getElementById("tip").classList.contains("hide"));
	check("browser-hover-tooltip", tipShown, "tooltip hidden on hover");

	// Ctrl-F opens the prompt; answer it with the search regex.
	page.once("dialog", d => d.accept(c.search));
	await page.keyboard.press("Control+f");
	await page.waitForFunction(() =>
		!document.getElementById("matched").classList.contains("hide"));
	const share = expectedShare(c.folded, new RegExp(c.search));
	const want = "Matched: " + share + "%";
	// A term matching some but not all stacks, at several depths, so
	// that counting nested matches twice would show.
	check("browser-search-term-useful", share !== "0.0" && share !== "100",
	      "'" + c.search + "' matches " + share + "% of the samples");
	let got = await page.locator("#matched").textContent();
	check("browser-search-matched", got === want, "shows '" + got + "', expected '" + want + "'");
	const hl = await page.locator("#frames path.m").count();
	check("browser-search-highlight", hl > 0, "no frame highlighted");
	check("browser-search-url", page.url().includes("s=" + encodeURIComponent(c.search)),
	      "URL " + page.url());
	await page.screenshot({ path: path.join(outdir, "browser-search.png") });

	// Case-insensitive: the upper-cased term finds the same frames.
	await page.evaluate(() => window.flamestat.resetSearch());
	await page.click("#ignorecase");
	page.once("dialog", d => d.accept(c.search.toUpperCase()));
	await page.click("#search");
	await page.waitForFunction(() =>
		!document.getElementById("matched").classList.contains("hide"));
	got = await page.locator("#matched").textContent();
	check("browser-search-ignorecase", got === want,
	      "upper-case search with ic shows '" + got + "', expected '" + want + "'");
	await page.click("#ignorecase");
	got = await page.locator("#matched").textContent();
	check("browser-search-case-sensitive", got === "Matched: 0.0%",
	      "without ic the upper-case search shows '" + got + "'");
	await page.evaluate(() => window.flamestat.resetSearch());

	// Click to zoom: the frame fills the width, ancestors fade, URL keeps it.
	await page.mouse.click(box.x, box.y);
	const z = await page.evaluate(name => {
		const r = [...document.querySelectorAll("#frames path")]
			.filter(e => e.fsFrame && e.fsFrame.name === name)
			.sort((a, b) => b.fsFrame.w - a.fsFrame.w)[0];
		const fw = +document.getElementById("frames").getAttribute("width");
		const b = r.getBoundingClientRect();
		return { rw: b.width, fw: fw,
			 parents: document.querySelectorAll("#frames path.p").length,
			 unzoom: !document.getElementById("unzoom").classList.contains("hide") };
	}, c.zoom);
	check("browser-zoom-width", Math.abs(z.rw - z.fw) < 2,
	      "zoomed frame " + z.rw + " px of " + z.fw);
	check("browser-zoom-parents", z.parents >= box.depth,
	      z.parents + " faded ancestors at depth " + box.depth);
	check("browser-zoom-button", z.unzoom, "Reset Zoom not shown");
	check("browser-zoom-url", page.url().includes("x=" + box.fx) &&
	      page.url().includes("y=" + box.depth), "URL " + page.url());
	await page.screenshot({ path: path.join(outdir, "browser-zoom.png") });

	// A link reproduces the view: reload with the URL, zoom and search.
	const link = url + "?x=" + box.fx + "&y=" + box.depth + "&s=" +
		encodeURIComponent(c.search);
	const p2 = await ctx.newPage();
	await p2.setViewportSize({ width: 1500, height: 900 });
	await p2.goto(link);
	await p2.waitForFunction(() => window.flamestat !== undefined);
	const st = await p2.evaluate(a => {
		// The frame at x, depth from the link fills the frames area.
		const r = [...document.querySelectorAll("#frames path")]
			.find(e => e.fsFrame && String(e.fsFrame.x) === String(a.x) &&
			      e.fsFrame.depth === a.y);
		const fr = document.getElementById("frames");
		return { name: r ? r.fsFrame.name : null,
			 rw: r ? r.getBoundingClientRect().width : 0,
			 fw: fr.width.baseVal.value,
			 m: document.getElementById("matched").textContent };
	}, { x: box.fx, y: box.depth });
	check("browser-url-restores-zoom", st.name === c.zoom && Math.abs(st.rw - st.fw) < 2,
	      JSON.stringify(st) + " after loading " + link);
	check("browser-url-restores-search", /^Matched: [0-9.]+%$/.test(st.m),
	      "matched text '" + st.m + "'");
	await p2.close();

	// Reset Zoom.
	await page.click("#unzoom");
	const r = await page.evaluate(() => ({
		vb: document.getElementById("frames").getAttribute("viewBox"),
		parents: document.querySelectorAll("#frames path.p").length,
		hidden: document.getElementById("unzoom").classList.contains("hide") }));
	check("browser-reset-zoom", r.vb.startsWith("0 0 ") && r.parents === 0 && r.hidden,
	      JSON.stringify(r));
	check("browser-reset-url", !page.url().includes("x="), "URL " + page.url());
	await page.screenshot({ path: path.join(outdir, "browser-graph.png") });
	check("browser-no-js-errors", errors.length === 0, errors.join("; "));
	await page.close();
}

async function diffChecks(ctx, c) {
	const page = await ctx.newPage();
	await page.setViewportSize({ width: 1200, height: 600 });
	const errors = [];
	page.on("pageerror", e => errors.push(e.message));
	await page.goto("file://" + path.resolve(c.svg));
	await page.waitForFunction(() => window.flamestat !== undefined);
	const fill = name => page.evaluate(n => {
		const r = [...document.querySelectorAll("#frames path")]
			.find(e => e.fsFrame && e.fsFrame.name === n);
		if (!r)
			return null;
		const m = /rgb\((\d+), (\d+), (\d+)\)/.exec(getComputedStyle(r).stroke);
		return m ? [+m[1], +m[2], +m[3]] : null;
	}, name);
	const g = await fill(c.grew), s = await fill(c.shrank);
	check("browser-diff-grew-red", g && g[0] === 255 && g[2] < 255,
	      c.grew + " is " + JSON.stringify(g));
	check("browser-diff-shrank-blue", s && s[2] === 255 && s[0] < 255,
	      c.shrank + " is " + JSON.stringify(s));
	await page.screenshot({ path: path.join(outdir, "browser-diff.png") });
	check("browser-diff-no-js-errors", errors.length === 0, errors.join("; "));
	await page.close();
}

// What the details bar says over a frame: its CPU time, samples and share
// for a recording's periods.
async function detailsChecks(ctx, c) {
	const page = await ctx.newPage();
	const errors = [];
	page.on("pageerror", e => errors.push(e.message));
	await page.setViewportSize({ width: 1200, height: 600 });
	await page.goto("file://" + path.resolve(c.svg));
	await page.waitForFunction(() => window.flamestat !== undefined);
	const box = await widestFrame(page, c.frame);
	if (box) {
		await page.mouse.move(box.x, box.y);
		const det = await page.locator("#details").textContent();
		check("browser-details-" + c.name, det === c.want,
		      "details bar says '" + det + "', expected '" + c.want + "'");
	} else {
		fail("browser-details-" + c.name, "no frame named " + c.frame);
	}
	check("browser-details-" + c.name + "-no-js-errors", errors.length === 0,
	      errors.join("; "));
	await page.close();
}

// Without JavaScript (an <img>, as on a forge's web page) the SVG must
// still load and draw its frames and labels.
async function staticChecks(ctx, c) {
	const html = path.join(outdir, "static.html");
	fs.writeFileSync(html, '<html><body style="margin:0"><img id="g" src="' +
			 path.resolve(c.svg) + '"></body></html>');
	const page = await ctx.newPage();
	await page.setViewportSize({ width: 1200, height: 700 });
	await page.goto("file://" + html);
	await page.waitForFunction(() => document.getElementById("g").complete);
	const w = await page.evaluate(() => document.getElementById("g").naturalWidth);
	check("browser-static-img", w === 1200, "as <img> the SVG is " + w + " px wide (0: it did not load)");
	await page.screenshot({ path: path.join(outdir, "browser-static.png") });
	await page.close();
}

// --- Large totals -------------------------------------------------------
// Chromium paints SVG coordinates in float32, so the positions of frames
// must be checked in the browser against the exact fractions of the
// counts: computed here with BigInt from the folded input, independently
// of the renderer, and compared (within 1 px) with where chromium puts each
// frame element (getBoundingClientRect) and with the colour it actually
// painted there (a screenshot's pixel), statically (no JavaScript, as an
// image viewer shows the file) and live: unzoomed, zoomed deep into a frame
// that is a tiny fraction of the total, after Escape, after a resize, and
// reloaded from the zoomed URL.

// The frame tree of a folded file as flamestat lays it out with
// --minwidth 0: stacks merged (children in name order; for a flame chart,
// in input order, merging only neighbours), exact x and width as BigInt.
// Names must be unique in the file: frames are found by name.
function expectedLayout(folded, o) {
	const root = { name: "all", depth: 0, kids: [], w: 0n };
	for (const line of fs.readFileSync(folded, "utf8").split("\n")) {
		const m = /^(.*\S)\s+(\d+)$/.exec(line);
		if (!m || line.startsWith("#"))
			continue;
		const n = BigInt(m[2]);
		let node = root;
		root.w += n;
		for (const name of m[1].split(";")) {
			let k = o.chart ? node.kids[node.kids.length - 1] :
				node.kids.find(c => c.name === name);
			if (!k || k.name !== name) {
				k = { name: name, depth: node.depth + 1, kids: [], w: 0n };
				node.kids.push(k);
			}
			k.w += n;
			node = k;
		}
	}
	if (o.total && BigInt(o.total) > root.w)
		root.w = BigInt(o.total);
	const out = [];
	(function place(node, x) {
		node.x = x;
		out.push({ name: node.name, depth: node.depth, x: node.x, w: node.w });
		if (!o.chart)
			node.kids.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
		for (const k of node.kids) {
			place(k, x);
			x += k.w;
		}
	})(root, 0n);
	return out;
}

// Where each frame must be in a view of frame v (null: everything): its
// share of the view's width as [lo, hi] fractions, ancestors clipped to
// the view, or null for a frame outside the view (not drawn).
function expectedView(layout, v) {
	const vx = v ? v.x : 0n, vw = v ? v.w : layout[0].w, vd = v ? v.depth : 0;
	const S = 1n << 40n;
	const frac = a => Number((a - vx) * S / vw) / Number(S);
	return layout.map(f => {
		let lo = f.x, hi = f.x + f.w;
		if (f.depth < vd) {
			if (lo > vx || hi < vx + vw)
				return { f: f, span: null };
			lo = vx;
			hi = vx + vw;
		} else if (lo < vx || hi > vx + vw) {
			return { f: f, span: null };
		}
		return { f: f, span: [frac(lo), frac(hi)] };
	});
}

// Every frame element of the page, found by document order (no help from
// the script, so that this works with JavaScript off): its name (from
// fsData, read as JSON), depth, box on screen, whether it is displayed,
// its stroke colour, and the frames area.
function pageFrames(page) {
	return page.evaluate(() => {
		const src = [...document.querySelectorAll("script")]
			.map(s => s.textContent).find(t => /var fsData = /.test(t));
		const D = JSON.parse(/var fsData = (\{[\s\S]*\});\s*$/.exec(src.trim())[1]);
		// The frames area: the nested <svg>'s viewport (its own
		// getBoundingClientRect is the box of what it holds).
		const fr = document.getElementById("frames");
		const top = document.getElementById("flamegraph"), tr = top.getBoundingClientRect();
		const vb = top.viewBox.baseVal, sc = vb && vb.width ? tr.width / vb.width : 1;
		const area = { left: tr.left + fr.x.baseVal.value * sc,
			       top: tr.top + fr.y.baseVal.value * sc,
			       width: fr.width.baseVal.value * sc };
		area.right = area.left + area.width;
		const rows = document.getElementById("frames").children, out = [];
		let k = 0;
		for (let d = 0; d < rows.length; d++) {
			for (const g of rows[d].children) {
				const c = g.getAttribute("class");
				for (const el of g.children) {
					const i = k++, r = el.getBoundingClientRect();
					let shown = true;
					for (let e = el; e && e.id !== "frames"; e = e.parentNode)
						if (getComputedStyle(e).display === "none")
							shown = false;
					out.push({ name: c === "root" ? "all" : c === "more" ?
						   "(" + D.f[i] + " more)" : D.names[D.f[i]],
						   depth: d, left: r.left, right: r.right, y: r.top + r.height / 2,
						   shown: shown, faded: el.classList.contains("p"),
						   stroke: getComputedStyle(el).stroke });
				}
			}
		}
		const labels = [...document.querySelectorAll("#labels text")].map(t => {
			const r = t.getBoundingClientRect();
			return { text: t.textContent, left: r.left, y: r.top + r.height / 2 };
		});
		return { area: { left: area.left, right: area.right, top: area.top,
				 width: area.width },
			 frames: out, labels: labels, inverted: D.inverted,
			 fh: D.frameheight, cw: D.fontsize * D.fontwidth };
	});
}

// The colour of screen pixels, from a screenshot decoded in a helper page.
async function pixels(page, helper, pts) {
	const png = (await page.screenshot()).toString("base64");
	return helper.evaluate(async a => {
		const img = new Image();
		img.src = "data:image/png;base64," + a.png;
		await img.decode();
		const cv = document.createElement("canvas");
		cv.width = img.width;
		cv.height = img.height;
		const cx = cv.getContext("2d");
		cx.drawImage(img, 0, 0);
		return a.pts.map(p => [...cx.getImageData(Math.round(p[0]), Math.round(p[1]), 1, 1).data].slice(0, 3));
	}, { png: png, pts: pts });
}

function rgb(s) {
	const m = /rgb\((\d+), (\d+), (\d+)\)/.exec(s);
	return m ? [+m[1], +m[2], +m[3]] : null;
}

// Geometry and paint of the view: each frame where the exact counts put it
// (within 1 px; on its row), hidden frames not drawn, and the middle of
// each frame wider than 3 px painted in its colour. Returns what is wrong.
async function viewErrors(page, helper, c, v, opt) {
	const P = await pageFrames(page);
	const want = expectedView(c.layout, v), bad = [], pts = [], who = [];
	const maxDepth = Math.max(...c.layout.map(f => f.depth));
	const A = P.area;
	for (const e of want) {
		const got = P.frames.filter(f => f.name === e.f.name && f.depth === e.f.depth);
		if (got.length !== 1) {
			bad.push(e.f.name + ": " + got.length + " elements");
			continue;
		}
		const g = got[0];
		if (!e.span) {
			// Not drawn: hidden, or (clipped) wholly outside the area.
			if (g.shown && g.right - g.left > 0 &&
			    Math.min(g.right, A.right) - Math.max(g.left, A.left) > 0.5)
				bad.push(e.f.name + " outside the view drawn at " +
					 g.left.toFixed(1) + ".." + g.right.toFixed(1));
			continue;
		}
		const l = A.left + e.span[0] * A.width, r = A.left + e.span[1] * A.width;
		const y = A.top + (P.inverted ? e.f.depth : maxDepth - e.f.depth) * P.fh +
			(P.fh - 1) / 2;
		if (!g.shown || Math.abs(g.left - l) > 1 || Math.abs(g.right - r) > 1 ||
		    Math.abs(g.y - y) > 1)
			bad.push(e.f.name + " at " + g.left.toFixed(2) + ".." + g.right.toFixed(2) +
				 " y " + g.y.toFixed(1) + (g.shown ? "" : " (hidden)") +
				 ", want " + l.toFixed(2) + ".." + r.toFixed(2) + " y " + y.toFixed(1));
		else if (r - l >= 3 && !g.faded && rgb(g.stroke)) {
			pts.push([(l + r) / 2, y]);
			who.push(g);
		}
		e.px = [l, r, y];
	}
	if (opt && opt.labels) {
		// Labels: one per frame wide enough for 3 characters, 3 px in.
		for (const e of want) {
			if (!e.span || (e.px[1] - e.px[0]) / P.cw < 3)
				continue;
			const lab = P.labels.filter(t => e.f.name.startsWith(t.text.replace(/\.\.$/, "")) &&
						    Math.abs(t.y - e.px[2]) < P.fh / 2);
			if (lab.length !== 1 || Math.abs(lab[0].left - (e.px[0] + 3)) > 1.5)
				bad.push("label of " + e.f.name + " at " +
					 (lab.length === 1 ? lab[0].left.toFixed(1) : lab.length + " labels") +
					 ", want " + (e.px[0] + 3).toFixed(1));
		}
	}
	if (pts.length) {
		await page.mouse.move(0, 0);
		const px = await pixels(page, helper, pts);
		px.forEach((p, i) => {
			const w = rgb(who[i].stroke);
			if (w.some((x, j) => Math.abs(x - p[j]) > 12))
				bad.push(who[i].name + " painted " + JSON.stringify(p) + " at " +
					 pts[i][0].toFixed(0) + "," + pts[i][1].toFixed(0) +
					 ", want " + JSON.stringify(w));
		});
	}
	return bad;
}

async function openGraph(ctx, url, width, noScript) {
	const page = await ctx.newPage();
	const errors = [];
	page.on("pageerror", e => errors.push(e.message));
	page.on("console", m => { if (m.type() === "error") errors.push(m.text()); });
	await page.setViewportSize({ width: width, height: 700 });
	if (noScript) {
		const s = await ctx.newCDPSession(page);
		await s.send("Emulation.setScriptExecutionDisabled", { value: true });
	}
	await page.goto(url);
	if (!noScript)
		await page.waitForFunction(() => window.flamestat !== undefined);
	page.fsErrors = errors;
	return page;
}

// The API takes x as a number, or beyond 2^53 as a decimal string.
function apiX(x) {
	return x > BigInt(Number.MAX_SAFE_INTEGER) ? x.toString() : Number(x);
}

async function bigChecks(ctx, helper, c) {
	const N = "big-" + c.name + "-";
	const url = "file://" + path.resolve(c.svg);
	const list = bad => bad.slice(0, 4).join("; ") + (bad.length > 4 ? "; ..." : "");
	c.layout = expectedLayout(c.folded, c);
	const byName = n => c.layout.find(f => f.name === n);
	const root = c.layout[0];

	// Without JavaScript, at the file's own width.
	let page = await openGraph(ctx, url, 1200, true);
	let bad = await viewErrors(page, helper, c, null);
	check(N + "static", !bad.length, list(bad));
	await page.screenshot({ path: path.join(outdir, N + "static.png") });
	await page.close();

	page = await openGraph(ctx, url, 1500);
	bad = await viewErrors(page, helper, c, null, { labels: true });
	check(N + "live", !bad.length, list(bad));

	// Exact counts in the details bar at any total.
	const hover = async (name, want) => {
		const P = await pageFrames(page);
		const maxDepth = Math.max(...c.layout.map(f => f.depth));
		const f = P.frames.find(g => g.name === name);
		const y = P.area.top + (P.inverted ? f.depth : maxDepth - f.depth) * P.fh + (P.fh - 1) / 2;
		await page.mouse.move((Math.max(f.left, P.area.left) + Math.min(f.right, P.area.right)) / 2, y);
		const det = await page.locator("#details").textContent();
		check(N + "details-" + name, det === want, "details bar says '" + det + "', expected '" + want + "'");
	};
	if (c.details)
		await hover(c.details[0], c.details[1]);

	// Deep zoom into a frame that is a tiny fraction of the total.
	const z = byName(c.zoom);
	await page.evaluate(a => window.flamestat.zoom(a[0], a[1]), [apiX(z.x), z.depth]);
	bad = await viewErrors(page, helper, c, z, { labels: true });
	check(N + "zoom", !bad.length, "zoomed into " + c.zoom + " (" + z.w + " of " + root.w +
	      " at " + z.x + "): " + list(bad));
	await page.screenshot({ path: path.join(outdir, N + "zoom.png") });
	if (c.zoomDetails)
		await hover(c.zoomDetails[0], c.zoomDetails[1]);

	// F3: the search prompt; the share is of the view, exactly.
	if (c.search) {
		page.once("dialog", d => d.accept(c.search[0]));
		await page.keyboard.press("F3");
		let m = "";
		try {
			await page.waitForFunction(() =>
				!document.getElementById("matched").classList.contains("hide"), null,
				{ timeout: 3000 });
			m = await page.locator("#matched").textContent();
		} catch (e) {
			m = "(nothing shown)";
		}
		check(N + "f3-search", m === "Matched: " + c.search[1] + "%",
		      "F3 search for '" + c.search[0] + "' in the zoomed view shows '" + m +
		      "', want 'Matched: " + c.search[1] + "%'");
		await page.evaluate(() => window.flamestat.resetSearch());
	}

	// The URL carries the exact x; a reload comes back to the same view.
	const u = new URL(page.url());
	check(N + "zoom-url", u.searchParams.get("x") === z.x.toString() &&
	      u.searchParams.get("y") === String(z.depth), "URL " + page.url() + ", want x=" + z.x);
	const p2 = await openGraph(ctx, url + "?x=" + z.x + "&y=" + z.depth, 1500);
	bad = await viewErrors(p2, helper, c, z);
	check(N + "url-restores-zoom", !bad.length, list(bad));
	await p2.close();

	// A narrower window: frames and labels laid out again, still zoomed.
	await page.setViewportSize({ width: 900, height: 700 });
	await page.waitForTimeout(100);
	bad = await viewErrors(page, helper, c, z, { labels: true });
	check(N + "resize", !bad.length, "at 900 px: " + list(bad));

	// Escape: back to the whole graph, exactly.
	await page.keyboard.press("Escape");
	bad = await viewErrors(page, helper, c, null, { labels: true });
	check(N + "escape", !bad.length, "after Escape: " + list(bad));
	check(N + "no-js-errors", page.fsErrors.length === 0, page.fsErrors.join("; "));
	await page.close();
}

// Options that change what the script does: --nameattr's attributes
// (title in the details, links, class, id), --truncate-text-left against
// the default after a zoom redraws the labels, --no-javascript.
async function optionChecks(ctx, c) {
	const open = async (svg) => {
		const page = await ctx.newPage();
		const errors = [];
		page.on("pageerror", e => errors.push(e.message));
		await page.setViewportSize({ width: 1200, height: 700 });
		await page.goto("file://" + path.resolve(svg));
		return { page, errors };
	};
	let { page, errors } = await open(c.nameattr);
	await page.waitForFunction(() => window.flamestat !== undefined);
	const a = await page.evaluate(() => {
		const frames = n => [...document.querySelectorAll("#frames path")]
			.filter(e => e.fsFrame && e.fsFrame.name === n);
		const y = frames("yyparse")[0], st = frames("stat")[0];
		const m = frames("main"), v = frames("vfs_write")[0];
		return {
			yLink: y.parentNode.tagName === "a" ? y.parentNode.getAttribute("href") : null,
			yTarget: y.parentNode.getAttribute("target"),
			stTarget: st.parentNode.getAttribute("target"),
			stRel: st.parentNode.getAttribute("rel"),
			mainClass: m.every(e => e.classList.contains("hot") && e.classList.contains("main") &&
				e.getAttribute("data-x") === "1" && e.getAttribute("data-y") === "two"),
			vwId: v.id,
			links: document.querySelectorAll("#frames a").length };
	});
	check("browser-nameattr-href", a.yLink === "https://example.com/yyparse" && a.yTarget === "_top",
	      JSON.stringify(a));
	check("browser-nameattr-target-a_extra", a.stTarget === "_blank" && a.stRel === "noopener",
	      JSON.stringify(a));
	check("browser-nameattr-class-g_extra", a.mainClass, JSON.stringify(a));
	check("browser-nameattr-id", a.vwId === "vw", JSON.stringify(a));
	let box = await widestFrame(page, "yyparse");
	await page.mouse.move(box.x, box.y);
	let det = await page.locator("#details").textContent();
	check("browser-nameattr-title", det === "Function: the parser (bison)",
	      "details bar says '" + det + "'");
	// Ctrl-click zooms; a plain click follows the link.
	await page.keyboard.down("Control");
	await page.mouse.click(box.x, box.y);
	await page.keyboard.up("Control");
	const zq = await page.evaluate(() => window.location.search);
	const zp = new URLSearchParams(zq);
	check("browser-nameattr-ctrl-click-zooms",
	      zp.get("x") === String(box.fx) && zp.get("y") === String(box.depth),
	      "URL '" + zq + "' after Ctrl-click (want x=" + box.fx + "&y=" + box.depth + ")");
	await page.route("https://example.com/**", r =>
		r.fulfill({ contentType: "text/html", body: "<p>linked</p>" }));
	box = await widestFrame(page, "yyparse");
	await Promise.all([page.waitForURL("https://example.com/yyparse", { timeout: 10000 })
		.catch(() => null), page.mouse.click(box.x, box.y)]);
	check("browser-nameattr-click-follows", page.url() === "https://example.com/yyparse",
	      "URL " + page.url() + " after a click on a linked frame");
	check("browser-nameattr-no-js-errors", errors.length === 0, errors.join("; "));
	await page.close();

	// Labels after a zoom: cut on the right ("start..", the default) or,
	// with --truncate-text-left, on the left ("..end").
	for (const [svg, left] of [[c.right, false], [c.left, true]]) {
		({ page, errors } = await open(svg));
		await page.waitForFunction(() => window.flamestat !== undefined);
		box = await widestFrame(page, c.zoom);
		await page.evaluate(b => window.flamestat.zoom(b.fx, b.depth), box);
		const l = await page.evaluate(() => [...document.querySelectorAll("#labels text")]
			.map(t => t.textContent));
		const cutL = l.filter(t => t.startsWith("..")).length;
		const cutR = l.filter(t => t.endsWith("..")).length;
		const name = "browser-truncate-" + (left ? "left" : "right") + "-after-zoom";
		check(name, left ? cutL > 0 && cutR === 0 : cutR > 0 && cutL === 0,
		      cutL + " labels cut on the left, " + cutR + " on the right of " + l.length);
		check(name + "-no-js-errors", errors.length === 0, errors.join("; "));
		if (left)
			await page.screenshot({ path: path.join(outdir, "browser-truncate-left.png") });
		await page.close();
	}

	// --no-javascript: frames and labels, no script, no buttons.
	({ page, errors } = await open(c.nojs));
	const n = await page.evaluate(() => ({
		script: window.flamestat !== undefined || document.querySelectorAll("script").length,
		frames: document.querySelectorAll("#frames path").length,
		labels: document.querySelectorAll("#labels text").length,
		search: !!document.getElementById("search") }));
	check("browser-no-javascript", !n.script && n.frames > 10 && n.labels > 3 && !n.search,
	      JSON.stringify(n));
	check("browser-no-javascript-no-errors", errors.length === 0, errors.join("; "));
	await page.screenshot({ path: path.join(outdir, "browser-no-javascript.png") });
	await page.close();
}


// --stroke-color: every frame a box with an outline of that colour (blue
// here; the hot palette has little blue). Along the row through a frame's
// middle the pixels inside are its fill, and within a pixel of each end
// the outline is painted; so for the frame zoomed into, now as wide as the
// view, and for its children after the zoom.
async function strokeChecks(ctx, helper, c) {
	const page = await ctx.newPage();
	const errors = [];
	page.on("pageerror", e => errors.push(e.message));
	await page.setViewportSize({ width: 1200, height: 700 });
	await page.goto("file://" + path.resolve(c.svg));
	await page.waitForFunction(() => window.flamestat !== undefined);
	const boxes = names => page.evaluate(ns => ns.map(n => {
		const el = [...document.querySelectorAll("#frames path")]
			.filter(e => e.fsFrame && e.fsFrame.name === n)
			.sort((a, b) => b.fsFrame.w - a.fsFrame.w)[0];
		const r = el.getBoundingClientRect();
		return { name: n, left: r.left, right: r.right, y: r.top + r.height / 2,
			 fx: String(el.fsFrame.x), depth: el.fsFrame.depth,
			 fill: getComputedStyle(el).fill };
	}), names);
	// Bluer than the background (about -40) and any hot-palette fill
	// (below -100), even where the 1 px outline straddles two pixels and
	// is blended half and half with the fill or the background.
	const blue = p => p[2] - (p[0] + p[1]) / 2 >= 20;
	const look = async (tag, list) => {
		for (const b of list) {
			const fill = rgb(b.fill), mid = (b.left + b.right) / 2;
			const px = await pixels(page, helper, [[mid, b.y],
				[b.left - 1, b.y], [b.left, b.y], [b.left + 1, b.y],
				[b.right - 1, b.y], [b.right, b.y], [b.right + 1, b.y]]);
			const inside = fill && px[0].every((v, i) => Math.abs(v - fill[i]) <= 3);
			const l = px.slice(1, 4).some(blue), r = px.slice(4).some(blue);
			check("browser-stroke-" + tag + "-" + b.name, inside && l && r,
			      "centre " + px[0] + " (fill " + b.fill + "), left " +
			      px.slice(1, 4).join(" | ") + ", right " + px.slice(4).join(" | "));
		}
	};
	await look("static", await boxes(c.frames));
	const z = (await boxes([c.zoom]))[0];
	await page.evaluate(b => window.flamestat.zoom(b.fx, b.depth), z);
	const zb = await boxes([c.zoom].concat(c.children));
	await look("zoomed", zb);
	// Nothing of the frames outside the view shows: above the highest
	// frame in view, the view's right end is background, not outline.
	const top = Math.min.apply(null, zb.map(b => b.y)), edge = zb[0].right;
	const out = await pixels(page, helper, [16, 32, 48].flatMap(dy =>
		[[edge - 2, top - dy], [edge - 1, top - dy], [edge, top - dy]]));
	check("browser-stroke-zoomed-nothing-outside", !out.some(blue),
	      "right end of the view above the frames: " + out.join(" | "));
	check("browser-stroke-no-js-errors", errors.length === 0, errors.join("; "));
	await page.screenshot({ path: path.join(outdir, "browser-stroke.png") });
	await page.close();
}

(async () => {
	let ctx;
	try {
		// A fresh profile directory each run (Playwright passes it
		// to chromium as --user-data-dir).
		ctx = await chromium.launchPersistentContext(
			fs.mkdtempSync(path.join(outdir, "chromium-profile-")), {
			executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
			headless: true,
			args: ["--headless", "--no-sandbox", "--disable-gpu",
			       "--disable-background-networking",
			       "--disable-component-update", "--disable-sync",
			       "--no-first-run"],
		});
	} catch (e) {
		fail("browser-launch", e.message);
		process.exit(1);
	}
	try {
		if (cases.graph)
			await graphChecks(ctx, cases.graph);
		if (cases.diff)
			await diffChecks(ctx, cases.diff);
		if (cases.graph)
			await staticChecks(ctx, cases.graph);
		for (const c of cases.details || [])
			await detailsChecks(ctx, c);
		if (cases.big) {
			const helper = await ctx.newPage();
			for (const c of cases.big)
				await bigChecks(ctx, helper, c);
			await helper.close();
		}
		if (cases.options)
			await optionChecks(ctx, cases.options);
		if (cases.stroke) {
			const helper = await ctx.newPage();
			await strokeChecks(ctx, helper, cases.stroke);
			await helper.close();
		}
	} catch (e) {
		fail("browser-run", e.stack || e.message);
	}
	await ctx.close();
	process.exit(failures ? 1 : 0);
})();
