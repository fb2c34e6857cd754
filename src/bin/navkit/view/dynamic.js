"use strict";
// navkit view's dynamics (served at /dynamic.js): tile-cache obstacles, a live crowd, scenario
// load/save and navmesh save, on the page's window.NK hooks. Nothing fetched but this server.
(() => {
  const NK = window.NK;
  const DT = 1 / 30;
  let status = null;          // the last /api/dynamic-style answer
  let overlayNames = [];      // overlays drawn from it
  let running = false, speed = 1, inflight = false, lastFrame = null, owed = 0;
  let showDetails = true;
  let lastTarget = null;      // the agents' target, for agents added after it

  // ---- the panel ----
  const box = NK.panel("Obstacles & crowd");
  box.innerHTML = `
    <div id="dyn-status" style="color:#9c9"></div>
    <label><input type="checkbox" id="dyn-on"> dynamic (tile cache), tile size
      <input type="number" id="dyn-tile" value="48" min="8" max="255" step="1" style="width:50px"></label>
    <div>click tool:</div>
    <div id="dyn-tools"></div>
    <label><input type="number" id="dyn-radius" value="1" step="any"> cylinder radius</label>
    <label><input type="number" id="dyn-height" value="2" step="any"> height</label>
    <label><input type="number" id="dyn-sx" value="2" step="any" style="width:40px">
      <input type="number" id="dyn-sz" value="2" step="any" style="width:40px"> box size x, z</label>
    <label><input type="number" id="dyn-angle" value="30" step="any"> oriented box angle (deg)</label>
    <button id="dyn-clear-obstacles">Remove all obstacles</button>
    <table id="dyn-obstacles"></table>
    <div style="margin-top:6px">
      <button id="dyn-random">Add 20 random agents</button><button id="dyn-clear-agents">Remove agents</button><br>
      <button id="dyn-run">Run</button><button id="dyn-step">Step</button>
      <label style="display:inline">speed <select id="dyn-speed">
        <option>0.25</option><option>0.5</option><option selected>1</option><option>2</option><option>4</option>
      </select></label><br>
      <label><input type="checkbox" id="dyn-details" checked> corners, velocities, targets</label>
      <div id="dyn-options"></div>
    </div>
    <table id="dyn-table"></table>
    <div style="margin-top:6px">
      <button id="dyn-save-scenario">Save scenario</button>
      <label style="display:inline"><button id="dyn-load-button">Load scenario</button>
        <input type="file" id="dyn-load" accept=".json,application/json" style="display:none"></label><br>
      <button id="dyn-save-mset">Save navmesh (MSET)</button><button id="dyn-save-tset">Save tile cache (TSET)</button>
    </div>
    <div id="dyn-msg" style="color:#f96;white-space:pre-wrap"></div>`;
  const $ = id => document.getElementById(id);
  const TOOLS = [["path", "path start/goal"], ["cylinder", "add cylinder"], ["box", "add box"],
    ["oriented_box", "add oriented box"], ["remove", "remove obstacle or agent"], ["agent", "add agent"],
    ["target", "agents' target"]];
  for (const [value, text] of TOOLS) {
    const label = document.createElement("label");
    const r = document.createElement("input");
    r.type = "radio"; r.name = "dyn-tool"; r.value = value; r.checked = value === "path";
    label.append(r, " " + text);
    $("dyn-tools").append(label);
  }
  // RecastDemo's crowd tool options, for every agent.
  const OPTIONS = [["optimize_vis", "optimize visibility"], ["optimize_topo", "optimize topology"],
    ["anticipate_turns", "anticipate turns"], ["obstacle_avoidance", "obstacle avoidance"],
    ["separation", "separation"],
    ["behaviours", "navkit behaviours (give way, head-on, queues; off: plain DetourCrowd)"],
    ["upstream_update", "upstream dtCrowd::update (same results, one core)"]];
  const NUMBERS = [["max_speed", "max speed (m/s)"], ["max_acceleration", "max acceleration"],
    ["separation_weight", "separation weight"]];
  for (const [key, text] of OPTIONS) {
    const label = document.createElement("label"), cb = document.createElement("input");
    cb.type = "checkbox"; cb.dataset.option = key;
    cb.onchange = () => setOption(key, cb.checked);
    label.append(cb, " " + text);
    $("dyn-options").append(label);
  }
  for (const [key, text] of NUMBERS) {
    const label = document.createElement("label"), inp = document.createElement("input");
    inp.type = "number"; inp.step = "any"; inp.dataset.option = key;
    inp.onchange = () => setOption(key, Number(inp.value));
    label.append(inp, " " + text);
    $("dyn-options").append(label);
  }
  {
    const label = document.createElement("label"), sel = document.createElement("select");
    sel.dataset.option = "avoidance_quality";
    ["low", "medium", "good", "high"].forEach((q, i) => sel.append(new Option(q, String(i))));
    sel.onchange = () => setOption("avoidance_quality", Number(sel.value));
    label.append(sel, " avoidance quality");
    $("dyn-options").append(label);
  }
  function setOption(key, value) { NK.api("/api/crowd/options", { [key]: value }).then(show).catch(err => { fail(err); refresh(); }); }
  const tool = () => document.querySelector("input[name=dyn-tool]:checked").value;
  const num = id => Number($(id).value);
  function say(m) { $("dyn-msg").textContent = m || ""; }
  function fail(err) { say(err.message || String(err)); }

  // ---- showing the server's state ----
  function show(s) {
    status = s;
    const names = [];
    for (const l of s.layers) {
      const detail = /^crowd\.(corners|velocities|targets)/.test(l.name);
      if (detail && !showDetails) continue;
      NK.setOverlay(l.name, l);
      names.push(l.name);
    }
    for (const n of overlayNames) if (!names.includes(n)) NK.setOverlay(n, null);
    overlayNames = names;
    NK.state.obstacles = s.obstacles;
    NK.state.agents = s.agents;
    NK.state.crowdTime = s.time;
    NK.state.dynamic = s.dynamic;
    $("dyn-on").checked = s.dynamic;
    for (const el of document.querySelectorAll("[data-option]")) {
      const v = s.options[el.dataset.option];
      if (el.type === "checkbox") el.checked = v; else if (document.activeElement !== el) el.value = String(v);
    }
    $("dyn-tile").value = s.tile_size;
    $("dyn-status").textContent = s.dynamic
      ? `dynamic: tile cache of ${s.tile_size}-cell tiles`
      : "static navmesh (the first obstacle or agent builds a tile cache)";
    const moving = s.agents.filter(a => Math.hypot(a.vel[0], a.vel[2]) > 0.05).length;
    const rows = [["obstacles", s.obstacles.length], ["agents", `${s.agents.length} (${moving} moving)`],
      ["crowd time", s.time.toFixed(2) + " s"], ["tile cache build", s.tile_cache_ms.toFixed(1) + " ms"],
      ["last obstacle change", `${s.tiles_rebuilt} tiles, ${s.update_ms.toFixed(1)} ms`],
      ["navmesh polys", s.counts ? s.counts.polys : NK.state.polys]];
    // Stuck agents by cause (the crowd behaviours report one; plain DetourCrowd none).
    const causes = {};
    for (const a of s.agents) if (a.stuck) causes[a.stuck] = (causes[a.stuck] || 0) + 1;
    const stuck = Object.entries(causes).map(([c, n]) => `${c} ${n}`).join(", ");
    rows.push(["stuck agents", stuck || "none"]);
    if (s.step_ms !== undefined) rows.push(["last step", s.step_ms.toFixed(2) + " ms"]);
    if (s.events) rows.push(["timed events (kept)", s.events]);
    // The obstacles, each with its remove button (the first 40).
    const list = $("dyn-obstacles");
    list.innerHTML = "";
    for (const o of s.obstacles.slice(0, 40)) {
      const tr = document.createElement("tr"), td = document.createElement("td"), x = document.createElement("button");
      const c = o.shape.pos || o.shape.center || o.shape.bmin;
      td.textContent = `${o.id}: ${o.shape.kind.replace("_", " ")} at (${c.map(v => v.toFixed(1)).join(", ")}), ${o.state}`;
      x.textContent = "×"; x.title = "remove"; x.onclick = () => removeObstacle({ id: o.id }).catch(fail);
      const tx = document.createElement("td"); tx.append(x);
      tr.append(td, tx); list.append(tr);
    }
    if (s.obstacles.length > 40) list.insertAdjacentHTML("beforeend", `<tr><td>... ${s.obstacles.length - 40} more</td></tr>`);
    $("dyn-table").innerHTML = rows.map(([k, v]) => `<tr><td>${k}</td><td class="n">${v}</td></tr>`).join("");
    NK.redraw();
    return s;
  }
  // After the navmesh changed: the scene and the path across it (reloadScene asks for it
  // again), the overlays.
  async function navmeshChanged(s) {
    await NK.reloadScene();
    show(s);
    return s;
  }

  // ---- obstacles ----
  function shapeAt(kind, p) {
    const h = num("dyn-height"), base = [p[0], p[1] - 0.5, p[2]];
    if (kind === "cylinder") return { kind, pos: base, radius: num("dyn-radius"), height: h };
    const hx = num("dyn-sx") / 2, hz = num("dyn-sz") / 2;
    if (kind === "box") return { kind, bmin: [p[0] - hx, base[1], p[2] - hz], bmax: [p[0] + hx, base[1] + h, p[2] + hz] };
    return { kind, center: [p[0], base[1] + h / 2, p[2]], half_extents: [hx, h / 2, hz],
      y_angle: num("dyn-angle") * Math.PI / 180 };
  }
  async function addObstacle(shape) {
    say("");
    return navmeshChanged(await NK.api("/api/obstacles/add", shape));
  }
  async function removeObstacle(body) {
    say("");
    return navmeshChanged(await NK.api("/api/obstacles/remove", body));
  }

  // ---- the crowd ----
  async function addAgents(body) { say(""); return show(await NK.api("/api/crowd/add", body)); }
  async function stepCrowd(steps) { return show(await NK.api("/api/crowd/step", { dt: DT, steps })); }
  function frame(t) {
    if (!running) { lastFrame = null; return; }
    if (lastFrame !== null) owed += Math.min(0.25, (t - lastFrame) / 1000) * speed;
    lastFrame = t;
    if (!inflight && owed >= DT) {
      const steps = Math.min(30, Math.floor(owed / DT));
      owed -= steps * DT;
      inflight = true;
      stepCrowd(steps).catch(err => { fail(err); setRunning(false); }).finally(() => { inflight = false; });
    }
    nextFrame();
  }
  // The next animation frame, or 50 ms on where frames are not being drawn (a hidden tab, a
  // headless browser): the crowd keeps its time either way.
  function nextFrame() {
    let done = false;
    const go = () => { if (!done) { done = true; frame(performance.now()); } };
    requestAnimationFrame(go);
    setTimeout(go, 50);
  }
  function setRunning(on) {
    running = on;
    $("dyn-run").textContent = on ? "Pause" : "Run";
    if (on) { owed = 0; lastFrame = null; nextFrame(); }
  }

  // ---- clicks ----
  NK.onClick((pick, e) => {
    const t = tool();
    if (t === "path") return false;
    if (!pick) { say("nothing under the mouse"); return true; }
    const p = pick.pos;
    let job;
    if (t === "cylinder" || t === "box" || t === "oriented_box") job = addObstacle(shapeAt(t, p));
    else if (t === "remove") {
      // The obstacle there, else the agent there.
      job = removeObstacle({ at: p }).catch(err => NK.api("/api/crowd/remove", { at: p }).then(show)
        .catch(() => { throw err; }));
    }
    // New agents head for the last target, as in RecastDemo.
    else if (t === "agent") job = addAgents(lastTarget ? { pos: p, target: lastTarget } : { pos: p });
    else if (t === "target") { lastTarget = p; job = NK.api("/api/crowd/target", { pos: p }).then(show); }
    if (job) job.catch(fail);
    return true;
  });

  // ---- buttons ----
  $("dyn-on").onchange = () => {
    say($("dyn-on").checked ? "building the tile cache ..." : "");
    NK.api("/api/dynamic", { enabled: $("dyn-on").checked, tile_size: num("dyn-tile") })
      .then(navmeshChanged).then(() => say("")).catch(err => { fail(err); refresh(); });
  };
  $("dyn-tile").onchange = () => { if ($("dyn-on").checked) $("dyn-on").onchange(); };
  $("dyn-clear-obstacles").onclick = () => removeObstacle({ all: true }).catch(fail);
  $("dyn-random").onclick = () => addAgents({ random: 20, seed: Math.floor(Math.random() * 1e9) }).catch(fail);
  $("dyn-clear-agents").onclick = () => NK.api("/api/crowd/remove", { all: true }).then(show).catch(fail);
  $("dyn-run").onclick = () => setRunning(!running);
  $("dyn-step").onclick = () => stepCrowd(1).catch(fail);
  $("dyn-speed").onchange = () => { speed = Number($("dyn-speed").value); };
  $("dyn-details").onchange = () => { showDetails = $("dyn-details").checked; if (status) show(status); };

  // ---- scenarios and saving ----
  function download(name, blob) {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob); a.download = name;
    document.body.append(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }
  async function currentScenario() {
    const s = await NK.api("/api/scenario");
    const ends = NK.endpoints();
    s.view = s.view || {};
    if (ends.length === 2) { s.view.start = ends[0]; s.view.goal = ends[1]; }
    return s;
  }
  async function loadScenario(text) {
    const r = await NK.fetch("/api/scenario", { method: "POST", headers: { "Content-Type": "application/json" }, body: text });
    const v = await r.json();
    if (!r.ok) throw new Error((v.error && v.error.message) || `HTTP ${r.status}`);
    await navmeshChanged(v);
    const view = v.view || {};
    if (view.start && view.goal) await NK.setPath(view.start, view.goal);
    say((v.warnings || []).join("\n"));
    return v;
  }
  $("dyn-save-scenario").onclick = () => currentScenario()
    .then(s => download("scenario.json", new Blob([JSON.stringify(s, null, 2) + "\n"], { type: "application/json" })))
    .catch(fail);
  $("dyn-load-button").onclick = () => $("dyn-load").click();
  $("dyn-load").onchange = () => {
    const f = $("dyn-load").files[0];
    if (!f) return;
    if (f.size > 1024 * 1024) { say(`${f.name} is ${f.size} bytes; scenarios may be at most 1 MiB`); return; }
    f.text().then(loadScenario).catch(fail).finally(() => { $("dyn-load").value = ""; });
  };
  async function saveBinary(path, name) {
    const r = await NK.fetch(path);
    if (!r.ok) { const v = await r.json(); throw new Error((v.error && v.error.message) || `HTTP ${r.status}`); }
    download(name, await r.blob());
  }
  $("dyn-save-mset").onclick = () => saveBinary("/api/navmesh.mset", "navmesh.bin").catch(fail);
  $("dyn-save-tset").onclick = () => saveBinary("/api/tilecache.tset", "tilecache.bin").catch(fail);

  function refresh() { return NK.api("/api/dynamic").then(show); }
  const started = NK.ready.then(refresh).catch(fail);

  // ---- the hook the browser tests drive ----
  // ?dyntest=x1,z1;x2,z2 starts from an empty scenario, sets the path between the navmesh points
  // below both, clicks with the cylinder tool on the middle of its longest straight leg (a
  // cylinder of &radius=, 1.5 by default, 3 m high) and waits for the path across the new navmesh; &agents=N adds N random agents (seed &seed=) and &seconds=S runs the crowd for S
  // simulated seconds through the page's own run loop. The result goes into #dyn-result.
  window.navkitDynamic = { addObstacle, removeObstacle, addAgents, stepCrowd, setRunning,
    loadScenario, currentScenario, shapeAt, status: () => status };
  const P = new URLSearchParams(location.search);
  if (!P.get("dyntest")) return;
  const pre = document.createElement("pre");
  pre.id = "dyn-result"; pre.style.display = "none";
  document.body.append(pre);
  const legLength = (a, b) => Math.hypot(b[0] - a[0], b[1] - a[1], b[2] - a[2]);
  started.then(async () => {
    const out = {};
    await loadScenario("{}");
    const pts = P.get("dyntest").split(";").map(s => s.split(",").map(Number));
    const a = NK.pickDown(pts[0][0], pts[0][1]), b = NK.pickDown(pts[1][0], pts[1][1]);
    out.picked = [a && a.pos, b && b.pos];
    if (!a || !b) throw new Error("the test points are not above the navmesh");
    const before = await NK.setPath(a.pos, b.pos);
    out.before = { status: before.status, straight_length_m: before.straight_length_m,
      corridor: before.corridor, straight: before.straight };
    if (P.get("obstacle") !== "0") {
      const st = before.straight;
      let k = 0;
      for (let i = 0; i + 1 < st.length; i++) if (legLength(st[i], st[i + 1]) > legLength(st[k], st[k + 1])) k = i;
      const mid = [(st[k][0] + st[k + 1][0]) / 2, (st[k][1] + st[k + 1][1]) / 2, (st[k][2] + st[k + 1][2]) / 2];
      $("dyn-radius").value = P.get("radius") || "1.5";
      $("dyn-height").value = "3";
      // A click there with the cylinder tool, as a user would make it.
      document.querySelector("input[name=dyn-tool][value=cylinder]").checked = true;
      const at = NK.screenOf(mid);
      if (!at) throw new Error("the obstacle's place is not on the screen");
      const mouse = (type, target) => target.dispatchEvent(new MouseEvent(type,
        { clientX: at.x, clientY: at.y, button: 0, bubbles: true }));
      mouse("mousedown", $("view") || document.querySelector("canvas"));
      mouse("mouseup", window);
      const waited = Date.now();
      while (NK.state.lastPath === before || !NK.state.obstacles || NK.state.obstacles.length !== 1) {
        if (Date.now() - waited > 20000) throw new Error("the click added no obstacle: " + $("dyn-msg").textContent);
        await new Promise(r => setTimeout(r, 20));
      }
      document.querySelector("input[name=dyn-tool][value=path]").checked = true;
      out.obstacle = NK.state.obstacles[0].shape;
      const after = NK.state.lastPath;
      out.after = { status: after.status, straight_length_m: after.straight_length_m,
        corridor: after.corridor, straight: after.straight };
      // The path before the obstacle stays drawn, grey, for comparison.
      const pos = [], col = [];
      for (let i = 0; i + 1 < st.length; i++) { pos.push(...st[i], ...st[i + 1]); col.push(160, 160, 160, 255, 160, 160, 160, 255); }
      NK.setOverlay("path before the obstacle", { kind: "lines", positions: pos, colors: col });
      out.obstacles = NK.state.obstacles.length;
      // &focus=D looks at the obstacle from D m away (after the click: the page's own &zoom= scales
      // the first view, which would make the click land a pixel-rounding away at that scale).
      if (P.get("focus")) NK.focus(out.obstacle.pos || mid, Number(P.get("focus")));
    }
    // &clicks=1: an agent added by a click on the start with the agent tool, sent to the goal
    // by a click with the target tool, then removed by a click on it with the remove tool.
    if (P.get("clicks") === "1") {
      const click = async (toolName, p, done) => {
        document.querySelector(`input[name=dyn-tool][value=${toolName}]`).checked = true;
        const at = NK.screenOf(p);
        if (!at) throw new Error("off the screen: " + p);
        const ev = (type, target) => target.dispatchEvent(new MouseEvent(type,
          { clientX: at.x, clientY: at.y, button: 0, bubbles: true }));
        ev("mousedown", $("view") || document.querySelector("canvas"));
        ev("mouseup", window);
        const t0 = Date.now();
        while (!done()) {
          if (Date.now() - t0 > 20000) throw new Error(`the ${toolName} click did nothing: ` + $("dyn-msg").textContent);
          await new Promise(r => setTimeout(r, 20));
        }
      };
      await click("agent", a.pos, () => NK.state.agents.length === 1);
      await click("target", b.pos, () => NK.state.agents[0].target_state === "Requesting");
      out.clicked_agent = { pos: NK.state.agents[0].pos, target: NK.state.agents[0].target };
      await click("remove", NK.state.agents[0].pos, () => NK.state.agents.length === 0);
      out.agents_after_remove = NK.state.agents.length;
      lastTarget = null;
      document.querySelector("input[name=dyn-tool][value=path]").checked = true;
    }
    const n = Number(P.get("agents") || 0);
    if (n > 0) {
      await addAgents({ random: n, seed: Number(P.get("seed") || 7) });
      out.agents_at_start = NK.state.agents.map(a => a.pos);
      const seconds = Number(P.get("seconds") || 0);
      if (seconds > 0) {
        speed = Number(P.get("speed") || 1);
        setRunning(true);
        await new Promise(resolve => {
          const wait = () => NK.state.crowdTime >= seconds ? resolve() : setTimeout(wait, 20);
          wait();
        });
        setRunning(false);
        while (inflight) await new Promise(r => setTimeout(r, 10));
        await refresh();
      }
      out.agents_at_end = NK.state.agents.map(a => a.pos);
      out.crowd_time = NK.state.crowdTime;
    }
    NK.redraw();
    pre.textContent = JSON.stringify(out);
  }).catch(err => { pre.textContent = JSON.stringify({ error: err.message || String(err) }); fail(err); });
})();
