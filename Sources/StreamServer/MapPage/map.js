"use strict";
(() => {
  const AREA = [13.08, 52.33, 13.76, 52.68];
  const canvas = document.getElementById("map");
  const ctx = canvas.getContext("2d");
  const $ = (id) => document.getElementById(id);
  const markers = new Map();
  const lastSeq = new Map();
  const errors = [];
  const view = { lon: (AREA[0] + AREA[2]) / 2, lat: (AREA[1] + AREA[3]) / 2, ppd: 1000 };
  let ws = null;
  let state = "connecting";
  let everConnected = false;
  let reconnects = 0;
  let attempt = 0;
  let stale = 0;
  let subCounter = 0;
  let current = null;
  let pending = null;
  let pendingResume = false;
  let follow = null;
  let frames = 0;
  let fps = 0;
  let debounce = null;
  let retryTimer = null;
  let lastError = "";

  const origError = console.error.bind(console);
  console.error = (...args) => { errors.push(args.map(String).join(" ")); origError(...args); };
  window.addEventListener("error", (e) => { errors.push(String(e.message)); });
  window.addEventListener("unhandledrejection", (e) => { errors.push(String(e.reason)); });

  function size() {
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.max(1, Math.floor(canvas.clientWidth * dpr));
    canvas.height = Math.max(1, Math.floor(canvas.clientHeight * dpr));
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  }
  const w = () => canvas.clientWidth;
  const h = () => canvas.clientHeight;
  const kx = () => view.ppd * Math.cos(view.lat * Math.PI / 180);
  const toX = (lon) => (lon - view.lon) * kx() + w() / 2;
  const toY = (lat) => h() / 2 - (lat - view.lat) * view.ppd;
  const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

  function fit() {
    size();
    view.lon = (AREA[0] + AREA[2]) / 2;
    view.lat = (AREA[1] + AREA[3]) / 2;
    const c = Math.cos(view.lat * Math.PI / 180);
    view.ppd = Math.min(w() / ((AREA[2] - AREA[0]) * c), h() / (AREA[3] - AREA[1])) * 0.95;
  }

  function bbox() {
    const halfLon = w() / 2 / kx();
    const halfLat = h() / 2 / view.ppd;
    const r = (v) => Math.round(v * 1e6) / 1e6;
    const minLon = halfLon >= 180 ? -180 : r(clamp(view.lon - halfLon, -180, 180));
    const maxLon = halfLon >= 180 ? 180 : r(clamp(view.lon + halfLon, -180, 180));
    return [minLon, r(clamp(view.lat - halfLat, -90, 90)), maxLon, r(clamp(view.lat + halfLat, -90, 90))];
  }

  function send(obj) {
    if (ws && ws.readyState === WebSocket.OPEN) { ws.send(JSON.stringify(obj)); return true; }
    return false;
  }

  function subscribe(resume) {
    const msg = follow
      ? { op: "subscribe", sub: "follow-" + (++subCounter), devices: [follow] }
      : { op: "subscribe", sub: "view-" + (++subCounter), area: { bbox: bbox() } };
    if (resume) {
      const since = {};
      let n = 0;
      for (const id of markers.keys()) {
        const s = lastSeq.get(id);
        if (s !== undefined && n < 1000 && (!follow || id === follow)) { since[id] = s; n++; }
      }
      if (n > 0) msg.since = since;
    }
    if (send(msg)) { pending = msg.sub; pendingResume = resume; }
  }

  function scheduleSubscribe() {
    if (debounce) clearTimeout(debounce);
    debounce = setTimeout(() => { debounce = null; subscribe(false); }, 150);
  }

  function onMessage(ev) {
    let m;
    try { m = JSON.parse(ev.data); } catch (e) { return; }
    switch (m.op) {
      case "welcome":
        state = "connected";
        if (everConnected) reconnects++;
        everConnected = true;
        attempt = 0;
        current = null;
        subscribe(true);
        break;
      case "subscribed":
        if (m.sub !== pending) break;
        current = m.sub;
        pending = null;
        for (const [id, mk] of markers) {
          if (pendingResume && (!follow || id === follow)) mk.sub = current;
          else markers.delete(id);
        }
        break;
      case "loc": {
        frames++;
        if (m.sub !== current) { stale++; break; }
        const prev = lastSeq.get(m.device);
        if (prev === undefined || m.seq > prev) lastSeq.set(m.device, m.seq);
        markers.set(m.device, {
          sub: m.sub, lon: m.lon, lat: m.lat, heading: m.heading, speed: m.speed, at: performance.now(),
        });
        if (follow && m.device === follow) { view.lon = m.lon; view.lat = m.lat; }
        break;
      }
      case "leave":
        if (m.sub !== current) { stale++; break; }
        markers.delete(m.device);
        break;
      case "error":
        lastError = (m.code || "error") + ": " + (m.message || "");
        console.warn("locstream error", m);
        break;
      default:
        break;
    }
  }

  function connect() {
    retryTimer = null;
    state = everConnected ? "reconnecting" : "connecting";
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/v1/stream";
    let sock;
    try { sock = new WebSocket(url, "locstream.v1"); } catch (e) { retry(); return; }
    ws = sock;
    sock.onmessage = onMessage;
    sock.onclose = () => { if (ws === sock) { ws = null; retry(); } };
  }

  function retry() {
    state = "disconnected";
    current = null;
    pending = null;
    if (retryTimer) return;
    const base = Math.min(10000, 250 * Math.pow(2, attempt));
    attempt = Math.min(attempt + 1, 10);
    retryTimer = setTimeout(connect, base / 2 + Math.random() * base / 2);
  }

  function niceStep(pixelsPerDeg) {
    const target = 90 / pixelsPerDeg;
    const p = Math.pow(10, Math.floor(Math.log10(target)));
    for (const f of [1, 2, 5, 10]) if (f * p >= target) return f * p;
    return 10 * p;
  }

  function draw() {
    const W = w(), H = h();
    ctx.fillStyle = "#0e1621";
    ctx.fillRect(0, 0, W, H);
    const b = bbox();
    ctx.font = "11px system-ui, sans-serif";
    ctx.lineWidth = 1;
    const sx = niceStep(kx());
    const dec = (s) => Math.max(0, -Math.floor(Math.log10(s) + 1e-9));
    ctx.strokeStyle = "#1f3347";
    ctx.fillStyle = "#6f8aa6";
    for (let lon = Math.ceil(b[0] / sx) * sx; lon <= b[2]; lon += sx) {
      const x = Math.round(toX(lon)) + 0.5;
      ctx.beginPath(); ctx.moveTo(x, 0); ctx.lineTo(x, H); ctx.stroke();
      ctx.fillText(lon.toFixed(dec(sx)) + "°", x + 3, H - 6);
    }
    const sy = niceStep(view.ppd);
    for (let lat = Math.ceil(b[1] / sy) * sy; lat <= b[3]; lat += sy) {
      const y = Math.round(toY(lat)) + 0.5;
      ctx.beginPath(); ctx.moveTo(0, y); ctx.lineTo(W, y); ctx.stroke();
      ctx.fillText(lat.toFixed(dec(sy)) + "°", 4, y - 3);
    }
    ctx.strokeStyle = "#3a5a7a";
    ctx.setLineDash([4, 4]);
    ctx.strokeRect(toX(AREA[0]), toY(AREA[3]), (AREA[2] - AREA[0]) * kx(), (AREA[3] - AREA[1]) * view.ppd);
    ctx.setLineDash([]);
    for (const [id, mk] of markers) {
      const x = toX(mk.lon), y = toY(mk.lat);
      if (x < -10 || y < -10 || x > W + 10 || y > H + 10) continue;
      const moving = (mk.speed || 0) > 0.5;
      ctx.fillStyle = id === follow ? "#ffd24a" : moving ? "#4ade80" : "#60a5fa";
      ctx.beginPath(); ctx.arc(x, y, id === follow ? 6 : 3.5, 0, 2 * Math.PI); ctx.fill();
      if (typeof mk.heading === "number" && moving) {
        const a = mk.heading * Math.PI / 180;
        ctx.strokeStyle = ctx.fillStyle;
        ctx.beginPath(); ctx.moveTo(x, y);
        ctx.lineTo(x + 8 * Math.sin(a), y - 8 * Math.cos(a)); ctx.stroke();
      }
      if (id === follow) { ctx.fillStyle = "#ffd24a"; ctx.fillText(id, x + 9, y - 6); }
    }
    requestAnimationFrame(draw);
  }

  function panel() {
    fps = frames; frames = 0;
    const now = performance.now();
    for (const [id, mk] of markers) if (now - mk.at > 120000) markers.delete(id);
    $("p-sub").textContent = current || "—";
    $("p-pending").textContent = pending || "—";
    $("p-state").textContent = state;
    $("p-state").className = state;
    $("p-fps").textContent = String(fps);
    $("p-reconnects").textContent = String(reconnects);
    $("p-devices").textContent = String(markers.size);
    $("p-stale").textContent = String(stale);
    $("p-follow").textContent = follow || "—";
    $("p-bbox").textContent = bbox().map((v) => v.toFixed(3)).join(", ");
    $("p-error").textContent = lastError;
  }

  function panBy(dx, dy) {
    view.lon = clamp(view.lon - dx / kx(), -180, 180);
    view.lat = clamp(view.lat + dy / view.ppd, -85, 85);
    if (follow) follow = null;
    scheduleSubscribe();
  }

  function zoomBy(f, px, py) {
    const cx = px === undefined ? w() / 2 : px, cy = py === undefined ? h() / 2 : py;
    const lon = view.lon + (cx - w() / 2) / kx(), lat = view.lat - (cy - h() / 2) / view.ppd;
    view.ppd = clamp(view.ppd * f, Math.max(w(), h()) / 360, 5e6);
    view.lon = lon - (cx - w() / 2) / kx();
    view.lat = clamp(lat + (cy - h() / 2) / view.ppd, -85, 85);
    scheduleSubscribe();
  }

  function followDevice(id) {
    follow = id;
    const mk = markers.get(id);
    if (mk) { view.lon = mk.lon; view.lat = mk.lat; }
    if (debounce) { clearTimeout(debounce); debounce = null; }
    subscribe(false);
  }

  let drag = null;
  canvas.addEventListener("pointerdown", (e) => {
    drag = { x: e.clientX, y: e.clientY, sx: e.clientX, sy: e.clientY };
    canvas.setPointerCapture(e.pointerId);
  });
  canvas.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (Math.abs(e.clientX - drag.sx) + Math.abs(e.clientY - drag.sy) < 4) return;
    drag.x = e.clientX; drag.y = e.clientY; drag.moved = true;
    panBy(dx, dy);
  });
  canvas.addEventListener("pointerup", (e) => {
    const d = drag;
    drag = null;
    if (!d || d.moved) return;
    const r = canvas.getBoundingClientRect();
    const px = e.clientX - r.left, py = e.clientY - r.top;
    let best = null, bestD = 100;
    for (const [id, mk] of markers) {
      const dd = (toX(mk.lon) - px) ** 2 + (toY(mk.lat) - py) ** 2;
      if (dd < bestD) { best = id; bestD = dd; }
    }
    if (best) followDevice(best);
  });
  canvas.addEventListener("wheel", (e) => {
    e.preventDefault();
    const r = canvas.getBoundingClientRect();
    zoomBy(Math.exp(-e.deltaY * 0.0015), e.clientX - r.left, e.clientY - r.top);
  }, { passive: false });
  $("b-unfollow").addEventListener("click", () => { follow = null; subscribe(false); });
  $("b-fit").addEventListener("click", () => { follow = null; fit(); scheduleSubscribe(); });
  window.addEventListener("resize", () => { size(); scheduleSubscribe(); });

  window.locstream = {
    get sub() { return current; },
    get pending() { return pending; },
    get state() { return state; },
    get reconnects() { return reconnects; },
    get stale() { return stale; },
    get fps() { return fps; },
    get follow() { return follow; },
    get errors() { return errors.slice(); },
    bbox,
    markers: () => [...markers.keys()],
    panBy,
    zoomBy,
    followDevice,
  };

  fit();
  connect();
  setInterval(panel, 1000);
  panel();
  requestAnimationFrame(draw);
})();
