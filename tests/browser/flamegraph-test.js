// SPDX-License-Identifier: GPL-2.0
// Drives Debian's chromium through playwright-core over flamestat SVGs:
// tooltip, search (Ctrl-F, case toggle, Matched %), click zoom, URL state,
// reset, fluid width, differential colours. Prints PASS/FAIL lines for
// tests/run and saves screenshots.
//
// node flamegraph-test.js CASES.json OUTDIR
// CASES.json: {"graph": {"svg":..., "folded":..., "search":..., "zoom":...},
//              "diff": {"svg":..., "grew":..., "shrank":...},
//              "details": [{"name":..., "svg":..., "frame":..., "want":...}],
//              "options": {"nameattr":..., "right":..., "left":..., "zoom":...,
//                          "nojs":...}}
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
	const st = await p2.evaluate(() => ({
		vb: document.getElementById("frames").getAttribute("viewBox"),
		m: document.getElementById("matched").textContent }));
	check("browser-url-restores-zoom", st.vb.startsWith(box.fx + " 0 " + box.w + " "),
	      "viewBox '" + st.vb + "' after loading " + link);
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
	const vb = await page.evaluate(() => document.getElementById("frames").getAttribute("viewBox"));
	check("browser-nameattr-ctrl-click-zooms", vb.startsWith(box.fx + " 0 " + box.w + " "),
	      "viewBox '" + vb + "' after Ctrl-click");
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
		if (cases.options)
			await optionChecks(ctx, cases.options);
	} catch (e) {
		fail("browser-run", e.stack || e.message);
	}
	await ctx.close();
	process.exit(failures ? 1 : 0);
})();
