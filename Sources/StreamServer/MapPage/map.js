// The live map: Leaflet for the base map, locstream.js for the stream, one canvas for the devices.
// A view is a subscription: each pan or zoom switches it. `plan()` says what a view subscribes to
// and which layer draws it; another layer (clusters for a wide view) is one more case there.
import { LocstreamClient } from "/locstream.js";

const settings = JSON.parse(document.getElementById("map-settings").textContent);
const HOME = [[52.33, 13.08], [52.68, 13.76]];
const FADE_AFTER_MS = 10000;
const FORGET_AFTER_MS = 120000;
const DATA_FRAME_MS = 100;
const $ = (id) => document.getElementById(id);
const errors = [];
const page = {
  state: "connecting", sub: null, reconnects: 0, stale: 0, frames: 0, fps: 0, follow: null,
  draws: 0, refusal: "", notice: "",
};

const originalError = console.error.bind(console);
console.error = (...args) => {
  errors.push(args.map(String).join(" "));
  originalError(...args);
};
window.addEventListener("error", (event) => errors.push(String(event.message)));
window.addEventListener("unhandledrejection", (event) => errors.push(String(event.reason)));
if (!window.L) {
  document.getElementById("p-error").textContent =
    "Leaflet is not installed on the server (Debian libjs-leaflet, or --leaflet-dir): the map cannot draw.";
  throw new Error("Leaflet missing at " + settings.leaflet);
}

/** The devices of a plain area or device subscription: position, heading, age; drawn on one canvas. */
class DeviceLayer {
  constructor() {
    this.markers = new Map();
    this.generation = 0;
  }

  /** A new subscription starts: what it does not send again by its snapshot's end goes. */
  begin() {
    this.generation++;
  }

  apply(event) {
    switch (event.type) {
      case "location": {
        const l = event.location;
        this.markers.set(l.device, {
          lat: l.lat, lon: l.lon, heading: l.heading, speed: l.speed, at: performance.now(), generation: this.generation,
        });
        return true;
      }
      case "left":
        return this.markers.delete(event.device);
      case "snapshotEnd":
      case "resumed":
        for (const [id, marker] of this.markers) if (marker.generation !== this.generation) this.markers.delete(id);
        return true;
      default:
        return false;
    }
  }

  clear() {
    this.markers.clear();
  }

  /** Forgets devices silent for FORGET_AFTER_MS; says whether any marker is fading (needs redrawing). */
  age(now) {
    let fading = false;
    for (const [id, marker] of this.markers) {
      const age = now - marker.at;
      if (age > FORGET_AFTER_MS) this.markers.delete(id);
      else if (age > FADE_AFTER_MS) fading = true;
    }
    return fading;
  }

  draw(context, map, now) {
    const size = map.getSize();
    for (const [id, marker] of this.markers) {
      const point = map.latLngToContainerPoint([marker.lat, marker.lon]);
      if (point.x < -10 || point.y < -10 || point.x > size.x + 10 || point.y > size.y + 10) continue;
      const followed = id === page.follow;
      const age = now - marker.at;
      context.globalAlpha = age <= FADE_AFTER_MS ? 1 : Math.max(0.2, 1 - (age - FADE_AFTER_MS) / (FORGET_AFTER_MS - FADE_AFTER_MS));
      const moving = (marker.speed || 0) > 0.5;
      context.fillStyle = followed ? "#ffd24a" : moving ? "#22c55e" : "#3b82f6";
      context.strokeStyle = "#0e1621";
      context.beginPath();
      if (typeof marker.heading === "number") {
        const a = (marker.heading * Math.PI) / 180;
        const r = followed ? 9 : 6;
        context.moveTo(point.x + r * Math.sin(a), point.y - r * Math.cos(a));
        context.lineTo(point.x + r * 0.7 * Math.sin(a + 2.4), point.y - r * 0.7 * Math.cos(a + 2.4));
        context.lineTo(point.x + r * 0.7 * Math.sin(a - 2.4), point.y - r * 0.7 * Math.cos(a - 2.4));
        context.closePath();
      } else {
        context.arc(point.x, point.y, followed ? 6 : 4, 0, 2 * Math.PI);
      }
      context.fill();
      context.stroke();
      if (followed) context.fillText(id, point.x + 10, point.y - 8);
    }
    context.globalAlpha = 1;
  }

  nearest(map, x, y, within) {
    let best = null;
    let bestDistance = within * within;
    for (const [id, marker] of this.markers) {
      const point = map.latLngToContainerPoint([marker.lat, marker.lon]);
      const distance = (point.x - x) ** 2 + (point.y - y) ** 2;
      if (distance < bestDistance) [best, bestDistance] = [id, distance];
    }
    return best;
  }
}

/** The offline base map: a longitude/latitude grid drawn on each tile, for air-gapped sites and tests. */
const OfflineGrid = L.GridLayer.extend({
  createTile(coords) {
    const tile = document.createElement("canvas");
    const size = this.getTileSize();
    tile.width = size.x;
    tile.height = size.y;
    const context = tile.getContext("2d");
    context.strokeStyle = "#1f3347";
    context.strokeRect(0.5, 0.5, size.x, size.y);
    const corner = this._map.unproject(coords.scaleBy(size), coords.z);
    context.fillStyle = "#6f8aa6";
    context.font = "11px system-ui, sans-serif";
    context.fillText(corner.lat.toFixed(3) + "°, " + corner.lng.toFixed(3) + "°", 4, 14);
    return tile;
  },
});

/** The square kilometres of `bounds` on a sphere, as the server measures an area. */
function squareKilometres(bounds) {
  const r = 6371.0088;
  const rad = Math.PI / 180;
  const south = Math.max(-90, bounds.getSouth());
  const north = Math.min(90, bounds.getNorth());
  const width = Math.min(360, bounds.getEast() - bounds.getWest());
  return r * r * width * rad * Math.abs(Math.sin(north * rad) - Math.sin(south * rad));
}

function bbox(bounds = map.getBounds()) {
  const round = (v) => Math.round(v * 1e6) / 1e6;
  const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
  const wide = bounds.getEast() - bounds.getWest() >= 360;
  return [
    wide ? -180 : round(L.Util.wrapNum(bounds.getWest(), [-180, 180], true)),
    round(clamp(bounds.getSouth(), -90, 90)),
    wide ? 180 : round(L.Util.wrapNum(bounds.getEast(), [-180, 180], true)),
    round(clamp(bounds.getNorth(), -90, 90)),
  ];
}

/** What the view subscribes to and which layer draws it; or, with no subscription, what to say. */
function plan() {
  if (page.follow) return { target: { devices: [page.follow] }, layer: devices };
  const area = squareKilometres(map.getBounds());
  if (area > settings.maxAreaKm2) {
    return {
      notice: "This view covers " + Math.round(area).toLocaleString("en") + " km²; the server streams areas of at most " +
        Math.round(settings.maxAreaKm2).toLocaleString("en") + " km². Zoom in to see devices.",
    };
  }
  return { target: { area: { bbox: bbox() } }, layer: devices };
}

const map = L.map("map", { zoomControl: true, worldCopyJump: true }).fitBounds(HOME);
if (settings.tiles) {
  L.tileLayer(settings.tiles, { attribution: settings.attribution, maxZoom: 19 }).addTo(map);
} else {
  new OfflineGrid({ attribution: settings.attribution || "offline grid" }).addTo(map);
}
const devices = new DeviceLayer();
const canvas = document.createElement("canvas");
canvas.id = "devices";
map.getContainer().appendChild(canvas);
const context = canvas.getContext("2d");
let drawPending = false;
let lastDataDraw = 0;

function resize() {
  const ratio = window.devicePixelRatio || 1;
  const size = map.getSize();
  canvas.width = Math.max(1, Math.floor(size.x * ratio));
  canvas.height = Math.max(1, Math.floor(size.y * ratio));
  canvas.style.width = size.x + "px";
  canvas.style.height = size.y + "px";
  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  context.font = "12px system-ui, sans-serif";
}

/** Draws on the next animation frame; data-driven redraws come at most every DATA_FRAME_MS. */
function redraw(fromData = false) {
  if (drawPending) return;
  const wait = fromData ? Math.max(0, lastDataDraw + DATA_FRAME_MS - performance.now()) : 0;
  drawPending = true;
  setTimeout(() => requestAnimationFrame(draw), wait);
}

function draw() {
  drawPending = false;
  const now = performance.now();
  lastDataDraw = now;
  page.draws++;
  const size = map.getSize();
  context.clearRect(0, 0, size.x, size.y);
  devices.draw(context, map, now);
}

const client = new LocstreamClient(
  (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/v1/stream",
  settings.auth ? { token: async () => token } : {},
);
let token = new URLSearchParams(location.hash.slice(1)).get("token") || "";
let controller = null;
let runs = 0;
let debounce = null;

/** Switches the subscription to what the view shows now. */
function view() {
  controller?.abort();
  controller = null;
  const next = plan();
  show("notice", next.notice || "");
  if (!next.target) {
    setState("idle");
    devices.clear();
    redraw();
    return;
  }
  if (settings.auth && !token) {
    setState("refused");
    show("p-error", "This server requires a token: enter one above, or open the page with #token=…");
    return;
  }
  const own = new AbortController();
  controller = own;
  follow(next, own, "view-" + ++runs);
}

async function follow(next, own, name) {
  next.layer.begin();
  if (!page.sub) setState("connecting");
  try {
    for await (const event of client.locations(next.target, { signal: own.signal })) {
      if (own !== controller) {
        page.stale++;
        continue;
      }
      if (event.type === "location") page.frames++;
      if (event.type === "snapshotEnd" || event.type === "resumed") {
        page.sub = name;
        setState("connected");
      }
      if (event.type === "reconnecting") {
        setState("reconnecting");
        if (event.attempt === 1) page.reconnects++;
      }
      if (page.follow && event.type === "location" && event.location.device === page.follow) {
        map.panTo([event.location.lat, event.location.lon], { animate: false });
      }
      if (next.layer.apply(event)) redraw(true);
    }
  } catch (error) {
    if (own !== controller) return;
    // A refusal (unauthorized, forbidden, bad_request…): retrying the same request would not help.
    setState("refused");
    show("p-error", (error.code || "error") + ": " + (error.detail || error.message));
  }
}

function setState(state) {
  page.state = state;
  const element = $("p-state");
  element.textContent = state;
  element.className = state;
}

function show(id, text) {
  if (id === "notice") page.notice = text;
  if (id === "p-error") page.refusal = text;
  const element = $(id);
  element.textContent = text;
  element.hidden = text === "";
}

function scheduleView() {
  clearTimeout(debounce);
  debounce = setTimeout(view, 150);
}

function followDevice(id) {
  page.follow = id;
  const marker = devices.markers.get(id);
  if (marker) map.panTo([marker.lat, marker.lon], { animate: false });
  clearTimeout(debounce);
  view();
}

function unfollow() {
  if (!page.follow) return;
  page.follow = null;
  scheduleView();
}

function panel() {
  page.fps = page.frames;
  page.frames = 0;
  if (devices.age(performance.now())) redraw(true);
  $("p-sub").textContent = page.sub || "—";
  $("p-fps").textContent = String(page.fps);
  $("p-reconnects").textContent = String(page.reconnects);
  $("p-devices").textContent = String(devices.markers.size);
  $("p-stale").textContent = String(page.stale);
  $("p-follow").textContent = page.follow || "—";
  $("p-bbox").textContent = bbox().map((v) => v.toFixed(3)).join(", ");
}

map.on("move zoom", () => redraw());
map.on("moveend", () => {
  if (!page.follow) scheduleView();
});
map.on("dragstart", unfollow);
map.on("resize", () => {
  resize();
  redraw();
});
map.on("click", (event) => {
  const id = devices.nearest(map, event.containerPoint.x, event.containerPoint.y, 10);
  if (id) followDevice(id);
});
$("b-unfollow").addEventListener("click", unfollow);
$("b-fit").addEventListener("click", () => {
  page.follow = null;
  map.fitBounds(HOME);
});
$("token-form").hidden = !settings.auth;
$("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  token = $("token").value.trim();
  show("p-error", "");
  view();
});

window.locstream = {
  get sub() { return page.sub; },
  get state() { return page.state; },
  get reconnects() { return page.reconnects; },
  get stale() { return page.stale; },
  get fps() { return page.fps; },
  get follow() { return page.follow; },
  get draws() { return page.draws; },
  get refusal() { return page.refusal; },
  get notice() { return page.notice; },
  get errors() { return errors.slice(); },
  bbox,
  markers: () => [...devices.markers.keys()],
  /** Where device `id` is drawn, in CSS pixels of the page (null when it is not held). */
  pointOf(id) {
    const marker = devices.markers.get(id);
    if (!marker) return null;
    const point = map.latLngToContainerPoint([marker.lat, marker.lon]);
    const box = map.getContainer().getBoundingClientRect();
    return [Math.round(box.left + point.x), Math.round(box.top + point.y)];
  },
  panBy: (dx, dy) => map.panBy([dx, dy], { animate: false }),
  zoomBy: (levels) => map.setZoom(map.getZoom() + levels, { animate: false }),
  followDevice,
};

resize();
view();
setInterval(panel, 1000);
panel();
