// The live map: Leaflet for the base map, locstream.js for the stream, one canvas for the devices
// or, in a view too wide or too crowded for them, for clusters (device counts per grid cell).
// A view is a subscription: each pan or zoom switches it. `plan()` says what a view subscribes to
// and which layer draws it.
import { LocstreamClient } from "/locstream.js";

const settings = JSON.parse(document.getElementById("map-settings").textContent);
const HOME = [[52.33, 13.08], [52.68, 13.76]];
const FADE_AFTER_MS = 10000;
const FORGET_AFTER_MS = 120000;
/** Redraws driven by data (positions that moved) come at most this often: 4 a second. Moves, zooms,
 * clicks and follows draw on the next animation frame. */
const DATA_FRAME_MS = 250;
/** With nothing else to draw, fading markers are redrawn this often (their alpha steps by 0.1). */
const FADE_FRAME_MS = 2000;
/** A view holding more devices than this shows clusters instead. */
const MAX_DEVICES = 2000;
/** The side of a cluster cell on screen, in CSS pixels: a view holds a few hundred cells at most. */
const CELL_PX = 64;
const $ = (id) => document.getElementById(id);
const errors = [];
const page = {
  state: "connecting", sub: null, reconnects: 0, stale: 0, frames: 0, fps: 0, follow: null,
  draws: 0, refusal: "", notice: "", cellDeg: null,
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
        const marker = this.markers.get(l.device);
        if (!marker) {
          this.markers.set(l.device, {
            lat: l.lat, lon: l.lon, heading: l.heading, speed: l.speed, at: performance.now(), generation: this.generation,
          });
          return true;
        }
        // Updated in place: 500 updates a second allocate no marker.
        marker.lat = l.lat;
        marker.lon = l.lon;
        marker.heading = l.heading;
        marker.speed = l.speed;
        marker.at = performance.now();
        marker.generation = this.generation;
        return true;
      }
      case "left":
        return this.markers.delete(event.device);
      case "snapshotEnd":
      case "resumed": {
        // A redraw only when a device went: the snapshot's locations were drawn as they came.
        let removed = false;
        for (const [id, marker] of this.markers) {
          if (marker.generation !== this.generation) removed = this.markers.delete(id) || removed;
        }
        return removed;
      }
      default:
        return false;
    }
  }

  clear() {
    this.markers.clear();
  }

  /** Forgets devices silent for FORGET_AFTER_MS. Says whether the canvas needs redrawing: a marker went,
   * or one is fading and the last draw is FADE_FRAME_MS old. */
  age(now, lastDraw) {
    let forgot = false;
    let fading = false;
    for (const [id, marker] of this.markers) {
      const age = now - marker.at;
      if (age > FORGET_AFTER_MS) forgot = this.markers.delete(id);
      else if (age > FADE_AFTER_MS) fading = true;
    }
    return forgot || (fading && now - lastDraw >= FADE_FRAME_MS);
  }

  /** Draws the markers as a few paths, one per colour and fade step, each filled and stroked once (a path
   * a marker cost 1,000 canvas operations a draw for 500 devices). The followed device goes last, on top,
   * with its name. */
  draw(context, map, now) {
    const size = map.getSize();
    const centre = map.getCenter().lng;
    const paths = new Map();
    let followed = null;
    for (const [id, marker] of this.markers) {
      const point = pointAt(marker, centre);
      if (point.x < -10 || point.y < -10 || point.x > size.x + 10 || point.y > size.y + 10) continue;
      if (id === page.follow) {
        followed = { id, marker, point };
        continue;
      }
      const key = markerColour(marker, false) + fadeStep(now - marker.at);
      let path = paths.get(key);
      if (!path) paths.set(key, (path = new Path2D()));
      markerShape(path, marker, point, false);
    }
    context.strokeStyle = "#0e1621";
    for (const [key, path] of paths) {
      context.fillStyle = key.slice(0, 7);
      context.globalAlpha = Number(key.slice(7));
      context.fill(path);
      context.stroke(path);
    }
    if (followed) {
      const path = new Path2D();
      markerShape(path, followed.marker, followed.point, true);
      context.globalAlpha = Number(fadeStep(now - followed.marker.at));
      context.fillStyle = markerColour(followed.marker, true);
      context.fill(path);
      context.stroke(path);
      context.fillText(followed.id, followed.point.x + 10, followed.point.y - 8);
    }
    context.globalAlpha = 1;
  }

  nearest(map, x, y, within) {
    let best = null;
    let bestDistance = within * within;
    for (const [id, marker] of this.markers) {
      const point = pointAt(marker);
      const distance = (point.x - x) ** 2 + (point.y - y) ** 2;
      if (distance < bestDistance) [best, bestDistance] = [id, distance];
    }
    return best;
  }

  /** How many of the devices are inside `box` (a bbox, as `bbox()` makes them). */
  countIn(box) {
    let count = 0;
    for (const marker of this.markers.values()) if (inside(box, marker.lat, marker.lon)) count++;
    return count;
  }
}

/** The cells of an aggregated area: each drawn as a circle with its count at its devices' mean position. */
class ClusterLayer {
  constructor() {
    this.cells = new Map();
    this.cellDeg = 90;
  }

  /** A new subscription of cells of `cellDeg` starts: its first (full) frame replaces the cells held. */
  begin(cellDeg) {
    this.pendingDeg = cellDeg;
  }

  apply(event) {
    if (event.type !== "cells") return false;
    if (event.full) {
      this.cells.clear();
      this.cellDeg = this.pendingDeg;
    }
    for (const cell of event.cells) {
      if (cell.count > 0) this.cells.set(cell.cell, cell);
      else this.cells.delete(cell.cell);
    }
    return true;
  }

  clear() {
    this.cells.clear();
  }

  total() {
    let total = 0;
    for (const cell of this.cells.values()) total += cell.count;
    return total;
  }

  /** The devices of the cells that reach into `box`: at least those inside it. */
  countIn(box) {
    let count = 0;
    for (const cell of this.cells.values()) {
      const b = this.boundsOf(cell.cell);
      const lonOverlaps = box[0] <= box[2] ? b.getWest() <= box[2] && b.getEast() >= box[0] : b.getEast() >= box[0] || b.getWest() <= box[2];
      if (lonOverlaps && b.getSouth() <= box[3] && b.getNorth() >= box[1]) count += cell.count;
    }
    return count;
  }

  /** The rectangle of cell `id` ("row:col"). */
  boundsOf(id) {
    const [row, col] = id.split(":").map(Number);
    const d = this.cellDeg;
    return L.latLngBounds([row * d - 90, col * d - 180], [Math.min(90, (row + 1) * d - 90), Math.min(180, (col + 1) * d - 180)]);
  }

  static radius(count) {
    return 11 + 5 * Math.log10(count);
  }

  static label(count) {
    if (count < 1000) return String(count);
    return count < 10000 ? (count / 1000).toFixed(1) + "k" : Math.round(count / 1000) + "k";
  }

  draw(context) {
    const font = context.font;
    context.font = "600 " + font;
    context.textAlign = "center";
    context.textBaseline = "middle";
    context.lineWidth = 2;
    for (const cell of this.cells.values()) {
      const point = pointAt(cell);
      const r = ClusterLayer.radius(cell.count);
      context.fillStyle = "#f59e0bcc";
      context.strokeStyle = "#fde68a";
      context.beginPath();
      context.arc(point.x, point.y, r, 0, 2 * Math.PI);
      context.fill();
      context.stroke();
      context.fillStyle = "#0e1621";
      context.fillText(ClusterLayer.label(cell.count), point.x, point.y);
    }
    context.font = font;
    context.textAlign = "start";
    context.textBaseline = "alphabetic";
    context.lineWidth = 1;
  }

  /** The cell drawn under (x, y), if any. */
  at(x, y) {
    for (const cell of this.cells.values()) {
      const point = pointAt(cell);
      if ((point.x - x) ** 2 + (point.y - y) ** 2 <= ClusterLayer.radius(cell.count) ** 2) return cell;
    }
    return null;
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

/** A marker's fill: the followed device yellow, a moving one green, a still one blue. */
function markerColour(marker, followed) {
  return followed ? "#ffd24a" : (marker.speed || 0) > 0.5 ? "#22c55e" : "#3b82f6";
}

/** A marker's alpha for `age`, in steps of 0.1 (as text): 1 while fresh, down to 0.2 before it is forgotten. */
function fadeStep(age) {
  if (age <= FADE_AFTER_MS) return "1";
  const alpha = 1 - (age - FADE_AFTER_MS) / (FORGET_AFTER_MS - FADE_AFTER_MS);
  return String(Math.max(2, Math.ceil(alpha * 10)) / 10);
}

/** Adds a marker to `path`: a triangle along its heading, or a dot without one. */
function markerShape(path, marker, point, followed) {
  if (typeof marker.heading === "number") {
    const a = (marker.heading * Math.PI) / 180;
    const r = followed ? 9 : 6;
    path.moveTo(point.x + r * Math.sin(a), point.y - r * Math.cos(a));
    path.lineTo(point.x + r * 0.7 * Math.sin(a + 2.4), point.y - r * 0.7 * Math.cos(a + 2.4));
    path.lineTo(point.x + r * 0.7 * Math.sin(a - 2.4), point.y - r * 0.7 * Math.cos(a - 2.4));
    path.closePath();
  } else {
    const r = followed ? 6 : 4;
    path.moveTo(point.x + r, point.y);
    path.arc(point.x, point.y, r, 0, 2 * Math.PI);
  }
}

/** Where `{lat, lon}` is drawn: on the copy of the world nearest the view's centre (across ±180). */
function pointAt({ lat, lon }, centre = map.getCenter().lng) {
  return map.latLngToContainerPoint([lat, lon + 360 * Math.round((centre - lon) / 360)]);
}

/** Whether a point is inside `box` (west > east crosses the antimeridian). */
function inside(box, lat, lon) {
  const [west, south, east, north] = box;
  return lat >= south && lat <= north && (west <= east ? lon >= west && lon <= east : lon >= west || lon <= east);
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

/** How many cells of `cellDeg` the server counts for `box` (docs/protocol.md, "Aggregated areas"). */
function cellsCovering(box, cellDeg) {
  const [west, south, east, north] = box;
  const band = (v, offset, span) => Math.min(Math.floor((v + offset) / cellDeg), Math.ceil(span / cellDeg) - 1);
  const columns = (from, to) => band(to, 180, 360) - band(from, 180, 360) + 1;
  const rows = band(north, 90, 180) - band(south, 90, 180) + 1;
  return rows * (west <= east ? columns(west, east) : columns(west, 180) + columns(-180, east));
}

/** The cell size for `box` at this zoom: about CELL_PX on screen, doubled while over `settings.maxCells`. */
function cellDegrees(box) {
  let cellDeg = Math.max(0.0001, (CELL_PX * 360) / (256 * 2 ** Math.round(map.getZoom())));
  while (cellDeg < 90 && cellsCovering(box, cellDeg) > settings.maxCells) cellDeg *= 2;
  return Math.min(90, cellDeg);
}

/** What the view subscribes to and which layer draws it: devices, or clusters when the view is over the
 * server's area limit or holds more than MAX_DEVICES devices (as far as the layers know). */
function plan() {
  if (page.follow) return { target: { devices: [page.follow] }, layer: devices };
  const box = bbox();
  const known = Math.max(devices.countIn(box), clusters.countIn(box));
  if (squareKilometres(map.getBounds()) <= settings.maxAreaKm2 && known <= MAX_DEVICES) {
    return { target: { area: { bbox: box } }, layer: devices };
  }
  const cellDeg = cellDegrees(box);
  return {
    target: { area: { bbox: box }, aggregate: { cell_deg: cellDeg } }, layer: clusters, cellDeg,
    notice: "Clusters of " + Number(cellDeg.toPrecision(3)) + "° cells: zoom in, or click one, to see devices.",
  };
}

const map = L.map("map", { zoomControl: true, worldCopyJump: true }).fitBounds(HOME);
if (settings.tiles) {
  L.tileLayer(settings.tiles, { attribution: settings.attribution, maxZoom: 19 }).addTo(map);
} else {
  new OfflineGrid({ attribution: settings.attribution || "offline grid" }).addTo(map);
}
const devices = new DeviceLayer();
const clusters = new ClusterLayer();
const canvas = document.createElement("canvas");
canvas.id = "devices";
map.getContainer().appendChild(canvas);
const context = canvas.getContext("2d");
let drawPending = false;
let lastDraw = 0;

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
  const wait = fromData ? Math.max(0, lastDraw + DATA_FRAME_MS - performance.now()) : 0;
  drawPending = true;
  setTimeout(() => requestAnimationFrame(draw), wait);
}

function draw() {
  drawPending = false;
  const now = performance.now();
  lastDraw = now;
  page.draws++;
  const size = map.getSize();
  context.clearRect(0, 0, size.x, size.y);
  devices.draw(context, map, now);
  clusters.draw(context);
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
  page.cellDeg = next.cellDeg ?? null;
  for (const layer of [devices, clusters]) if (layer !== next.layer) layer.clear();
  redraw();
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
  next.layer.begin(next.cellDeg);
  if (!page.sub) setState("connecting");
  try {
    for await (const event of client.locations(next.target, { signal: own.signal })) {
      if (own !== controller) {
        page.stale++;
        continue;
      }
      if (event.type === "location" || event.type === "cells") page.frames++;
      if (event.type === "snapshotEnd" || event.type === "resumed") {
        page.sub = name;
        setState("connected");
        if (next.layer === devices && crowded()) view();
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

/** Whether a device view holds more than MAX_DEVICES devices: time for clusters. */
function crowded() {
  return !page.follow && page.cellDeg === null && devices.countIn(bbox()) > MAX_DEVICES;
}

function unfollow() {
  if (!page.follow) return;
  page.follow = null;
  scheduleView();
}

/** Sets an element's text when it differs: an unchanged panel costs no style, layout or paint. */
function setText(id, text) {
  const element = $(id);
  if (element.textContent !== text) element.textContent = text;
}

/** Once a second: the frame count, ageing (a redraw only when a marker went or a fade step is due), the panel. */
function panel() {
  page.fps = page.frames;
  page.frames = 0;
  if (devices.age(performance.now(), lastDraw)) redraw(true);
  if (crowded()) view();
  setText("p-view", page.cellDeg === null ? "devices" : "clusters of " + Number(page.cellDeg.toPrecision(3)) + "°");
  setText("p-sub", page.sub || "—");
  setText("p-fps", String(page.fps));
  setText("p-reconnects", String(page.reconnects));
  setText("p-devices", String(page.cellDeg === null ? devices.markers.size : clusters.total()));
  setText("p-stale", String(page.stale));
  setText("p-follow", page.follow || "—");
  setText("p-bbox", bbox().map((v) => v.toFixed(3)).join(", "));
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
  const { x, y } = event.containerPoint;
  const id = devices.nearest(map, x, y, 10);
  if (id) return followDevice(id);
  const cell = clusters.at(x, y);
  if (cell) map.fitBounds(clusters.boundsOf(cell.cell));
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

/** Where `{lat, lon}` is drawn, in CSS pixels of the page. */
function pagePoint(position) {
  if (!position) return null;
  const point = pointAt(position);
  const box = map.getContainer().getBoundingClientRect();
  return [Math.round(box.left + point.x), Math.round(box.top + point.y)];
}

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
  /** The cell size of the clusters shown, or null when the view shows devices. */
  get cellDeg() { return page.cellDeg; },
  get zoom() { return map.getZoom(); },
  get errors() { return errors.slice(); },
  bbox,
  markers: () => [...devices.markers.keys()],
  clusters: () => [...clusters.cells.values()],
  /** Where device `id` is drawn, in CSS pixels of the page (null when it is not held). */
  pointOf: (id) => pagePoint(devices.markers.get(id)),
  /** Where cluster `cell` is drawn, in CSS pixels of the page (null when it is not held). */
  clusterPointOf: (cell) => pagePoint(clusters.cells.get(cell)),
  panBy: (dx, dy) => map.panBy([dx, dy], { animate: false }),
  zoomBy: (levels) => map.setZoom(map.getZoom() + levels, { animate: false }),
  setView: (lat, lon, zoom) => map.setView([lat, lon], zoom, { animate: false }),
  followDevice,
};

resize();
view();
setInterval(panel, 1000);
panel();
