// SPDX-License-Identifier: GPL-2.0
//
// Usage: node browser.mjs NPMDIR CHROMIUM (FOLDED:SVG | heatmap:SVG:PNG)...
//
// The browser half of tests/browser/run.sh, which renders the SVGs and
// installs the npm packages into NPMDIR.  Prints TAP lines; exits 1 when
// any failed.  For each heatmap SVG (probectl heatmap --svg), Chromium
// opens it and checks it against itself (checkHeatmap() has the list:
// counts, sums per column, geometry, colours, labels, hover) and saves a
// screenshot as PNG.  For each folded file and the SVG drawn from it:
//   1. Chromium (headless, driven by playwright-core) opens the SVG from a
//      file:// URL; every frame it shows is compared with the folded
//      file: its path from the root (found from the geometry alone) is a
//      stack prefix of the file with the count its <title> says, and
//      every prefix wide enough is drawn; widths are proportional to
//      counts; labels are the names, cut with ".." to fit the width the
//      browser really gives them; hovering shows the title on the details
//      line; a click zooms and "Reset zoom" undoes it.
//   2. speedscope's web app (from its npm package, served from 127.0.0.1
//      with the file) imports the file: its Sandwich view, searched for
//      each name, lists the name with its total and self counts as the
//      file has them.
// Timeouts everywhere: a browser that hangs fails the test.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [npmDir, chromiumPath, ...pairs] = process.argv.slice(2);
const STEP_MS = 20000;		// one browser action
const ALL_MS = 170000;		// everything (run.sh kills at 180 s)
const PAD = 10, ROW = 16, EPS = 0.02;
let failed = false;

function tap(ok, desc, diag) {
	console.log(`${ok ? 'ok' : 'not ok'} - ${desc}`);
	if (!ok) {
		failed = true;
		for (const l of [].concat(diag || []).slice(0, 20))
			console.log(`# ${l}`);
	}
}

const watchdog = setTimeout(() => {
	tap(false, `browser tests finished within ${ALL_MS / 1000} s`);
	process.exit(1);
}, ALL_MS);

// The folded file, parsed here on its own (not with probectl's parser).
function parseFolded(file) {
	const stacks = [];
	for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
		if (line === '')
			continue;
		const m = /^(.*) (\d+)$/.exec(line.replace(/\r$/, ''));
		if (!m)
			throw new Error(`${file}: not a folded line: ${line}`);
		stacks.push({ frames: m[1].split(';'), count: BigInt(m[2]) });
	}
	return stacks;
}

// Every stack prefix, keyed by its frames joined with NUL, with its count.
function prefixes(stacks) {
	const map = new Map();
	let all = 0n;
	for (const s of stacks) {
		all += s.count;
		for (let i = 1; i <= s.frames.length; i++) {
			const k = s.frames.slice(0, i).join('\0');
			map.set(k, (map.get(k) || 0n) + s.count);
		}
	}
	return { map, all };
}

// Per name: samples with it on the stack (once) and with it as the leaf.
function nameTotals(stacks) {
	const t = new Map();
	const get = (n) => {
		if (!t.has(n))
			t.set(n, { total: 0n, self: 0n });
		return t.get(n);
	};
	for (const s of stacks) {
		for (const n of new Set(s.frames))
			get(n).total += s.count;
		get(s.frames[s.frames.length - 1]).self += s.count;
	}
	return t;
}

function titleParts(t) {
	const m = /^(.*) \((\d+) samples?, (\d+\.\d\d)%\)$/s.exec(t);
	return m ? { name: m[1], count: BigInt(m[2]) } : null;
}

// What the page shows of every frame.
async function readFrames(page) {
	return page.$$eval('g.f', (gs) => gs.map((g, i) => {
		const r = g.querySelector('rect'), t = g.querySelector('text');
		const b = r.getBoundingClientRect();
		return {
			i,
			title: g.querySelector('title').textContent,
			x: +r.getAttribute('x'), y: +r.getAttribute('y'),
			w: +r.getAttribute('width'),
			shown: getComputedStyle(g).display !== 'none',
			text: t.textContent,
			textPx: t.textContent ? t.getComputedTextLength() : 0,
			fill: getComputedStyle(r).fill,
			cx: b.x + b.width / 2, cy: b.y + b.height / 2,
		};
	}));
}

// Each frame's parent, from the geometry: one row below, spanning it.
function linkFrames(frames) {
	for (const f of frames) {
		const p = titleParts(f.title);
		f.name = p ? p.name : null;
		f.count = p ? p.count : null;
	}
	const byY = [...frames].sort((a, b) => b.y - a.y);
	const root = byY[0];
	for (const f of byY) {
		if (f === root) {
			f.path = [];
			continue;
		}
		const par = frames.filter((q) => q.y === f.y + ROW &&
			q.x <= f.x + EPS && q.x + q.w >= f.x + f.w - EPS);
		f.parent = par.length === 1 ? par[0] : null;
		f.path = f.parent && f.parent.path ?
			f.parent.path.concat([f.name]) : null;
		if (f.parent)
			(f.parent.kids = f.parent.kids || []).push(f);
	}
	return root;
}

async function checkSvg(browser, folded, svg, label) {
	const stacks = parseFolded(folded);
	const { map, all } = prefixes(stacks);
	const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
	page.setDefaultTimeout(STEP_MS);
	const errors = [];
	page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
	await page.goto(pathToFileURL(path.resolve(svg)).href);
	const frames = await readFrames(page);
	tap(errors.length === 0 && frames.length > 0,
		`${label}: Chromium opens the SVG (${frames.length} frames, no script error)`,
		errors);
	if (!frames.length) {
		await page.close();
		return;
	}

	// 1. titles
	const bad = frames.filter((f) => !titleParts(f.title));
	tap(bad.length === 0,
		`${label}: every frame has a <title> 'NAME (COUNT samples, P%)'`,
		bad.map((f) => `title: ${f.title}`));

	// 2. frames and stack prefixes, both ways
	const root = linkFrames(frames);
	const scale = root.w / Number(root.count);
	const diag = [];
	if (root.name !== 'all' || root.count !== all)
		diag.push(`root is '${root.title}', want all with ${all} samples`);
	const drawn = new Map();
	for (const f of frames) {
		if (f === root)
			continue;
		if (!f.path) {
			diag.push(`no parent found for '${f.title}'`);
			continue;
		}
		const k = f.path.join('\0');
		if (drawn.has(k))
			diag.push(`drawn twice: ${f.path.join(';')}`);
		drawn.set(k, f);
		if (map.get(k) !== f.count)
			diag.push(`${f.path.join(';')}: ${f.count} samples, the file has ${map.get(k) || 0}`);
	}
	for (const [k, c] of map)
		if (Number(c) * scale >= 0.2 && !drawn.has(k))
			diag.push(`not drawn: ${k.split('\0').join(';')} (${c})`);
	tap(diag.length === 0,
		`${label}: the frames are the file's ${map.size} stack prefixes with their counts, merged, each above its parent`,
		diag);

	// 3. widths in proportion to counts
	const wbad = frames.filter((f) => f.count !== null &&
		Math.abs(f.w - Number(f.count) * scale) > 0.011);
	tap(wbad.length === 0,
		`${label}: widths in proportion to counts (${scale.toPrecision(4)} px a sample)`,
		wbad.map((f) => `${f.name}: ${f.w} px for ${f.count}`));

	// the test module's frames (pcore_*), each drawn with its <title>
	const mine = [...new Set(stacks.flatMap((s) => s.frames))]
		.filter((n) => n.includes('pcore_'));
	if (mine.length) {
		const missing = mine.filter((n) => !frames.some((f) => f.name === n));
		tap(missing.length === 0,
			`${label}: a <title> for each of the ${mine.length} pcore_ frames: ${mine.map((n) => n.split('+')[0]).join(', ')}`,
			missing.map((n) => `no frame titled '${n} (...)'`));
	}

	// a process's user frames (fixtures/ustack.folded, or the profile of
	// pcore_ustack's program in the VM, where libc's start code comes
	// between the process and main): main, outer and spin_here drawn
	// above it, each with its whole name as its label; drawn from the
	// device (flamegraph NAME), in one colour of their own that no kernel
	// frame has
	const ustk = stacks.find((s) => s.frames[0] === 'ustack' &&
		s.frames.join(';').includes(';main;outer;spin_here'));
	if (!ustk && label.startsWith('ustack'))
		tap(false, `${label}: a stack of the process ustack through main;outer;spin_here`,
			stacks.slice(0, 5).map((s) => s.frames.join(';')));
	if (ustk) {
		const want = ['main', 'outer', 'spin_here'];
		const root = ustk.frames.slice(0, ustk.frames.indexOf('main'));
		const got = want.map((n, i) => frames.find((f) => f.name === n &&
			f.path && f.path.join(';') ===
			[...root, ...want.slice(0, i + 1)].join(';')));
		const udiag = want.filter((n, i) => !got[i] || got[i].text !== n)
			.map((n) => `'${n}' not drawn above ${root.join(';')} with its label`);
		tap(udiag.length === 0,
			`${label}: the user frames main, outer, spin_here drawn above their process, labelled`,
			udiag);
		if (svg.includes('flame_ustack')) {
			const kfill = new Set(frames.filter((f) =>
				f.path && f.path.length > root.length + 3 &&
				f.path[0] === 'ustack')
				.map((f) => f.fill));
			const violet = got.filter((f) => f && /rgb\((\d+), (\d+), (\d+)\)/
				.test(f.fill) && (([, r, g, b]) => +b > +r && +b > +g)(
				f.fill.match(/rgb\((\d+), (\d+), (\d+)\)/)) &&
				!kfill.has(f.fill));
			tap(violet.length === 3,
				`${label}: drawn from the device, the user frames are violet (blue above red and green), unlike the kernel frames above them`,
				got.map((f) => f ? `${f.name}: ${f.fill}` : 'missing'));
		}
	}

	// the test module's leaf under its two callers: e.g. 300 and 700
	const leaves = frames.filter((f) => f.name &&
		f.name.startsWith('pcore_stackt_leaf+')).sort((a, b) => a.w - b.w);
	if (leaves.length === 2) {
		const want = Number(leaves[0].count) / Number(leaves[1].count);
		const got = leaves[0].w / leaves[1].w;
		tap(Math.abs(got / want - 1) < 0.005,
			`${label}: the two pcore_stackt_leaf frames are ${leaves[0].w} and ${leaves[1].w} px wide, ${got.toFixed(4)} as their counts ${leaves[0].count}:${leaves[1].count}`,
			[`want ratio ${want}`]);
	}

	// 4. labels: the name, or its start and "..", inside the frame
	const lbad = frames.filter((f) => f.text !== '' && (f.text !== f.name &&
		!(f.text.endsWith('..') && f.name.startsWith(f.text.slice(0, -2))) ||
		f.textPx > f.w - 3));
	const named = frames.filter((f) => f.text !== '').length;
	tap(lbad.length === 0 && named > 0,
		`${label}: ${named} labels, each the frame's name or its start and '..', narrower than the frame as Chromium draws it`,
		lbad.map((f) => `'${f.text}' (${f.textPx.toFixed(1)} px) in '${f.name}' (${f.w} px)`));

	// 5. hover: the widest leaf
	const leaf = frames.filter((f) => !f.kids && f !== root)
		.sort((a, b) => b.w - a.w)[0];
	if (leaf) {
		await page.mouse.move(leaf.cx, leaf.cy);
		const details = await page.textContent('#details');
		tap(details === leaf.title,
			`${label}: hovering '${leaf.name}' shows '${leaf.title}'`,
			[`details line: '${details}'`]);
	}

	// 6. zoom to a narrow frame with children, then reset
	const z = frames.filter((f) => f.kids && f !== root && f.w >= 4)
		.sort((a, b) => a.w - b.w)[0];
	if (z) {
		await page.mouse.click(z.cx, z.cy);
		const after = await readFrames(page);
		const k = (root.w) / z.w;
		const zd = [];
		const az = after[z.i];
		if (Math.abs(az.w - root.w) > 0.02)
			zd.push(`zoomed frame ${az.w} px, want ${root.w}`);
		for (const c of z.kids) {
			if (Math.abs(after[c.i].w - c.w * k) > 0.05)
				zd.push(`child ${c.name}: ${after[c.i].w} px, want ${c.w * k}`);
			if (after[c.i].text === '' && c.text !== '')
				zd.push(`child ${c.name} lost its label`);
		}
		const outside = frames.filter((f) => f.y <= z.y &&
			(f.x + f.w <= z.x - EPS || f.x >= z.x + z.w + EPS));
		for (const f of outside)
			if (after[f.i].shown)
				zd.push(`${f.name}, outside the zoomed frame, still shown`);
		await page.click('#unzoom');
		const back = await readFrames(page);
		for (const f of frames)
			if (back[f.i].w !== f.w || back[f.i].x !== f.x ||
			    !back[f.i].shown || back[f.i].text !== f.text)
				zd.push(`after reset: ${f.name} at ${back[f.i].x}+${back[f.i].w}, was ${f.x}+${f.w}`);
		tap(zd.length === 0,
			`${label}: a click zooms to '${z.name}' (children scaled ${k.toFixed(2)} times, ${outside.length} frames beside it hidden), Reset zoom restores`,
			zd);
	}
	// 7. search: the widest leaf's name, the share of the stacks with it
	// (when their outermost match is drawn: not under 0.1 px)
	if (leaf) {
		const term = leaf.name;
		let hit = 0n;
		for (const s of stacks) {
			const i = s.frames.findIndex((f) => f.includes(term));
			const k = s.frames.slice(0, i + 1).join('\0');
			if (i >= 0 && Number(map.get(k)) * scale >= 0.1)
				hit += s.count;
		}
		const want = `Matched: ${(100 * Number(hit) / Number(all)).toFixed(2)}%`;
		page.once('dialog', (d) => d.accept(term));
		await page.click('#search');
		await page.waitForFunction(() =>
			document.getElementById('matched').textContent !== ' ');
		const got = await page.textContent('#matched');
		const lit = (await readFrames(page)).filter((f) => f.name === term);
		const fills = await page.$$eval('g.f rect', (rs) =>
			rs.map((r) => r.getAttribute('fill')));
		const pink = fills.filter((c) => c === 'rgb(230,0,230)').length;
		tap(Math.abs(parseFloat(got.slice(9)) - parseFloat(want.slice(9))) <= 0.011 &&
			pink >= lit.length && pink > 0,
			`${label}: Search '${term}' highlights ${pink} frames and shows '${want}'`,
			[`got '${got}', ${pink} highlighted`]);
	}
	await page.close();
}

// A heatmap's title: "[lo, hi) at A to B UTC: N value(s)" of a cell,
// "A to B UTC: N value(s)" of a column's bar.
function heatTitle(t) {
	const m = /^(?:(\[[^)]*\)) at )?(.+ to .+ UTC): (\d+) values?$/.exec(t);
	return m ? { range: m[1] || null, when: m[2], n: BigInt(m[3]) } : null;
}

async function checkHeatmap(browser, svg, png, label) {
	const size = /<svg [^>]*width="(\d+)" height="(\d+)"/.exec(
		fs.readFileSync(svg, 'utf8'));
	const W = size ? +size[1] : 1200, H = size ? +size[2] : 800;
	const page = await browser.newPage({ viewport: { width: W, height: H } });
	page.setDefaultTimeout(STEP_MS);
	const errors = [];
	page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
	await page.goto(pathToFileURL(path.resolve(svg)).href);
	const read = (sel) => page.$$eval(sel, (rs) => rs.map((r) => {
		const b = r.getBoundingClientRect();
		return {
			col: +r.dataset.col, row: r.dataset.row === undefined ?
				null : +r.dataset.row,
			n: r.dataset.n, title: r.querySelector('title').textContent,
			x: +r.getAttribute('x'), y: +r.getAttribute('y'),
			w: +r.getAttribute('width'), h: +r.getAttribute('height'),
			fill: r.getAttribute('fill'),
			cx: b.x + b.width / 2, cy: b.y + b.height / 2,
		};
	}));
	const cells = await read('rect.c');
	const bars = await read('rect.t');
	tap(errors.length === 0 && cells.length > 0 && bars.length > 0,
		`${label}: Chromium opens the heatmap (${cells.length} cells, ${bars.length} intervals with values, no script error)`,
		errors);
	if (!cells.length) {
		await page.close();
		return;
	}

	// 1. every cell's and bar's title says its count and when
	const bad = cells.concat(bars).filter((c) => {
		const t = heatTitle(c.title);
		return !t || t.n !== BigInt(c.n) || (c.row === null) !== (t.range === null);
	});
	tap(bad.length === 0,
		`${label}: each cell's <title> is '[lo, hi) at START to END UTC: N values' with its data-n, each interval's bar's 'START to END UTC: N values'`,
		bad.map((c) => `title '${c.title}', data-n ${c.n}`));

	// 2. a column's cells add up to its bar, and have its times
	const diag = [];
	const cols = new Map();
	for (const c of cells) {
		const k = cols.get(c.col) || { n: 0n, when: new Set(), x: new Set() };
		k.n += BigInt(c.n);
		k.when.add(heatTitle(c.title).when);
		k.x.add(`${c.x}+${c.w}`);
		cols.set(c.col, k);
	}
	for (const b of bars) {
		const k = cols.get(b.col);
		if (!k || k.n !== BigInt(b.n))
			diag.push(`column ${b.col}: cells ${k ? k.n : 0}, bar ${b.n}`);
		else if (k.when.size !== 1 || !k.when.has(heatTitle(b.title).when))
			diag.push(`column ${b.col}: times ${[...k.when].join(' | ')}, bar ${b.title}`);
		if (k && (k.x.size !== 1 || !k.x.has(`${b.x}+${b.w}`)))
			diag.push(`column ${b.col}: cells at ${[...k.x].join(' ')}, bar at ${b.x}+${b.w}`);
	}
	for (const c of cols.keys())
		if (!bars.some((b) => b.col === c))
			diag.push(`column ${c} has cells but no bar`);
	const total = bars.reduce((a, b) => a + BigInt(b.n), 0n);
	tap(diag.length === 0,
		`${label}: the cells of each of the ${bars.length} intervals add up to its bar (${total} values), in its place and with its times`,
		diag);

	// 3. geometry: newer columns to the right, higher rows above, in the grid
	const grid = await page.$eval('#grid', (g) => ({
		x: +g.getAttribute('x'), y: +g.getAttribute('y'),
		w: +g.getAttribute('width'), h: +g.getAttribute('height') }));
	const gd = [];
	for (const a of cells) {
		if (a.x < grid.x - 0.01 || a.x + a.w > grid.x + grid.w + 0.01 ||
		    a.y < grid.y - 0.01 || a.y + a.h > grid.y + grid.h + 0.01)
			gd.push(`cell ${a.col}/${a.row} at ${a.x},${a.y} outside the grid`);
	}
	const byCol = [...cells].sort((a, b) => a.col - b.col);
	for (let i = 1; i < byCol.length; i++)
		if (byCol[i].col > byCol[i - 1].col && byCol[i].x <= byCol[i - 1].x)
			gd.push(`column ${byCol[i].col} not right of ${byCol[i - 1].col}`);
	const byRow = [...cells].sort((a, b) => a.row - b.row);
	for (let i = 1; i < byRow.length; i++)
		if (byRow[i].row > byRow[i - 1].row && byRow[i].y >= byRow[i - 1].y)
			gd.push(`row ${byRow[i].row} not above row ${byRow[i - 1].row}`);
	tap(gd.length === 0,
		`${label}: cells inside the grid, newer intervals to the right, higher rows above`,
		gd.slice(0, 10));

	// 4. rows: the label on the left is the range in its cells' titles,
	// and the ranges rise with the rows
	const labels = await page.$$eval('#rows text', (ts) => ts.map((t) =>
		({ row: +t.dataset.row, text: t.textContent })));
	const ld = [];
	const rangeOf = new Map();
	for (const c of cells) {
		const r = heatTitle(c.title).range;
		if (rangeOf.has(c.row) && rangeOf.get(c.row) !== r)
			ld.push(`row ${c.row}: '${rangeOf.get(c.row)}' and '${r}'`);
		rangeOf.set(c.row, r);
	}
	for (const l of labels)
		if (rangeOf.has(l.row) && rangeOf.get(l.row) !== l.text)
			ld.push(`row ${l.row}: label '${l.text}', cells '${rangeOf.get(l.row)}'`);
	// a range's lower bound in its unit's smallest: times print scaled
	// ('[918 us, 1.049 ms)'), other units as numbers ('[4096bytes, ...')
	const scale = { ns: 1, us: 1e3, ms: 1e6, s: 1e9 };
	const lower = (r) => {
		const m = /^\[(\d+(?:\.\d+)?) ?([a-z_]*)/.exec(r);
		return parseFloat(m[1]) * (scale[m[2]] ?? 1);
	};
	const rows = [...rangeOf.entries()].sort((a, b) => a[0] - b[0]);
	for (let i = 1; i < rows.length; i++)
		if (lower(rows[i][1]) <= lower(rows[i - 1][1]))
			ld.push(`row ${rows[i][0]} '${rows[i][1]}' not above '${rows[i - 1][1]}'`);
	tap(ld.length === 0 && labels.length > 0,
		`${label}: ${labels.length} row labels, each the range its cells' titles say; ranges rise upwards`,
		ld.slice(0, 10));

	// 5. colours: more values, a darker cell (less green, on yellow to red)
	const green = (f) => +/rgb\(\d+,(\d+),\d+\)/.exec(f)[1];
	const cd = [];
	const sorted = [...cells].sort((a, b) => Number(BigInt(a.n) - BigInt(b.n)));
	for (let i = 1; i < sorted.length; i++)
		if (BigInt(sorted[i].n) > BigInt(sorted[i - 1].n) &&
		    green(sorted[i].fill) > green(sorted[i - 1].fill))
			cd.push(`${sorted[i].n} values: ${sorted[i].fill}, ${sorted[i - 1].n}: ${sorted[i - 1].fill}`);
	tap(cd.length === 0,
		`${label}: the more values, the darker the cell (${sorted[0].n} to ${sorted[sorted.length - 1].n} values)`,
		cd.slice(0, 10));

	// 6. hover: the fullest cell, then the fullest interval's bar
	for (const [what, list] of [['cell', cells], ['interval bar', bars]]) {
		const top = [...list].sort((a, b) => Number(BigInt(b.n) - BigInt(a.n)))[0];
		await page.mouse.move(top.cx, top.cy);
		const details = await page.textContent('#details');
		tap(details === top.title,
			`${label}: hovering the fullest ${what} shows '${top.title}'`,
			[`details line: '${details}'`]);
	}
	await page.mouse.move(0, 0);

	// 7. the picture, for the user guide (docs/heatmap.png)
	if (png) {
		await page.screenshot({ path: png, clip: { x: 0, y: 0, width: W, height: H } });
		const st = fs.statSync(png);
		const head = fs.readFileSync(png).subarray(0, 24);
		tap(st.size > 1000 && head.readUInt32BE(16) === W && head.readUInt32BE(20) === H,
			`${label}: a ${W}x${H} PNG of it in ${png}`, [`${st.size} bytes`]);
	}
	await page.close();
}

// speedscope's built app and the profiles, on 127.0.0.1 only.
function serve(files) {
	const app = path.join(npmDir, 'node_modules/speedscope/dist/release');
	const srv = http.createServer((req, res) => {
		const u = new URL(req.url, 'http://127.0.0.1');
		const m = /^\/profile\/(\d+)\.collapsedstack\.txt$/.exec(u.pathname);
		let f = m ? files[+m[1]] : path.join(app, path.normalize(u.pathname));
		if (!m && (!f.startsWith(app + path.sep) || u.pathname === '/'))
			f = path.join(app, 'index.html');
		fs.readFile(f, (err, data) => {
			if (err) {
				res.writeHead(404);
				res.end();
				return;
			}
			const types = { '.html': 'text/html', '.js': 'text/javascript',
				'.css': 'text/css', '.wasm': 'application/wasm' };
			res.writeHead(200, { 'Content-Type':
				types[path.extname(f)] || 'application/octet-stream' });
			res.end(data);
		});
	});
	return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(srv)));
}

function cellCount(s) {
	const m = /^([\d,]+) \(/.exec(s);
	return m ? BigInt(m[1].replace(/,/g, '')) : null;
}

async function checkSpeedscope(browser, port, idx, folded, label) {
	const stacks = parseFolded(folded);
	const totals = nameTotals(stacks);
	// Every name of a small file; of a large one, the test module's and
	// the 30 heaviest.
	let names = [...totals.keys()];
	if (names.length > 60)
		names = names.filter((n) => n.includes('pcore_')).concat(names
			.sort((a, b) => Number(totals.get(b).total - totals.get(a).total))
			.slice(0, 30));
	names = [...new Set(names)];

	const ctx = await browser.newContext({ locale: 'en-US',
		viewport: { width: 1400, height: 1400 } });
	const page = await ctx.newPage();
	page.setDefaultTimeout(STEP_MS);
	const log = [];
	page.on('console', (m) => log.push(m.text()));
	page.on('pageerror', (e) => log.push(`page error: ${e.message}`));
	const base = `http://127.0.0.1:${port}`;
	await page.goto(`${base}/index.html#profileURL=${encodeURIComponent(
		`${base}/profile/${idx}.collapsedstack.txt`)}`);
	// loaded: the page's title names the file; '3' is the Sandwich view
	await page.waitForFunction(() => / - speedscope$/.test(document.title));
	await page.keyboard.press('3');
	await page.waitForSelector('table td');
	tap(log.includes('Importing as collapsed stack format'),
		`${label}: speedscope imports the file as collapsed stacks`, log);

	const diag = [];
	let exact = 0;
	await page.keyboard.press('Control+f');
	const search = page.locator('input').first();
	for (const n of names) {
		await search.fill(n);
		const rows = await page.$$eval('table tr', (trs) => trs
			.map((tr) => Array.from(tr.querySelectorAll('td'),
				(td) => td.textContent))
			.filter((c) => c.length === 3));
		const row = rows.find((c) => c[2] === n);
		const want = totals.get(n);
		if (!row) {
			diag.push(`'${n}' not in the Sandwich view (rows: ${rows.map((c) => c[2]).join(' | ')})`);
			continue;
		}
		// JavaScript numbers are exact up to 2^53 only.
		if (want.total > BigInt(Number.MAX_SAFE_INTEGER))
			continue;
		exact++;
		if (cellCount(row[0]) !== want.total || cellCount(row[1]) !== want.self)
			diag.push(`'${n}': total '${row[0]}', self '${row[1]}'; want ${want.total} and ${want.self}`);
	}
	tap(diag.length === 0,
		`${label}: speedscope's Sandwich view lists ${names.length} names, ${exact} with the total and self counts of the file`,
		diag);
	await ctx.close();
}

async function main() {
	const pw = await import(pathToFileURL(path.join(npmDir,
		'node_modules/playwright-core/index.mjs')).href);
	const heatmaps = pairs.filter((p) => p.startsWith('heatmap:')).map((p) => {
		const [svg, png] = p.slice(8).split(':');
		return { svg, png };
	});
	const inputs = pairs.filter((p) => !p.startsWith('heatmap:')).map((p) => {
		const i = p.lastIndexOf(':');
		return { folded: p.slice(0, i), svg: p.slice(i + 1) };
	});
	const browser = await pw.chromium.launch({ executablePath: chromiumPath,
		timeout: STEP_MS, args: ['--no-sandbox'] });
	const srv = await serve(inputs.map((x) => path.resolve(x.folded)));
	try {
		for (const x of heatmaps) {
			const label = path.basename(x.svg);
			try {
				await checkHeatmap(browser, x.svg, x.png, label);
			} catch (e) {
				tap(false, `${label}: the heatmap checks ran`, String(e.stack).split('\n'));
			}
		}
		for (const [i, x] of inputs.entries()) {
			const label = path.basename(x.folded);
			try {
				await checkSvg(browser, x.folded, x.svg, label);
			} catch (e) {
				tap(false, `${label}: the SVG checks ran`, String(e.stack).split('\n'));
			}
			try {
				await checkSpeedscope(browser, srv.address().port, i,
					x.folded, label);
			} catch (e) {
				tap(false, `${label}: the speedscope checks ran`, String(e.stack).split('\n'));
			}
		}
	} finally {
		srv.close();
		await browser.close();
	}
}

main().then(() => {
	clearTimeout(watchdog);
	process.exit(failed ? 1 : 0);
}, (e) => {
	tap(false, 'the browser tests ran', String(e.stack).split('\n'));
	process.exit(1);
});
