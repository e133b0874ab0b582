/// The map page's markup and style: everything of the page but its script (`MapPage.script`).
extension MapPage {
    /// The HTML up to the script's body.
    static let htmlHead = #"""
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>locstream live map</title>
            <link rel="icon" href="data:,">
            <style>
              html, body { margin: 0; height: 100%; background: #0e1621; color: #d7e3f0; }
              body { font: 13px system-ui, sans-serif; }
              body { display: flex; }
              #map { flex: 1; min-width: 0; height: 100%; display: block; cursor: grab; touch-action: none; }
              #map:active { cursor: grabbing; }
              aside { width: 240px; padding: 14px 16px; background: #15202e; overflow: auto; }
              aside { border-left: 1px solid #24364a; }
              h1 { font-size: 15px; margin: 0 0 12px; }
              dl { display: grid; grid-template-columns: auto 1fr; gap: 6px 10px; margin: 0 0 14px; }
              dt { color: #8aa2bb; }
              dd { margin: 0; font-variant-numeric: tabular-nums; word-break: break-all; }
              .connected { color: #4ade80; }
              .connecting, .reconnecting { color: #facc15; }
              .disconnected { color: #f87171; }
              button { background: #24364a; color: inherit; border: 1px solid #34506c; }
              button { border-radius: 4px; padding: 4px 10px; }
              p { color: #8aa2bb; line-height: 1.4; }
              #p-error { color: #f87171; }
            </style>
            </head>
            <body>
            <canvas id="map" aria-label="live device map"></canvas>
            <aside>
              <h1>locstream live map</h1>
              <dl>
                <dt>state</dt><dd id="p-state">connecting</dd>
                <dt>sub</dt><dd id="p-sub">—</dd>
                <dt>pending</dt><dd id="p-pending">—</dd>
                <dt>frames/s</dt><dd id="p-fps">0</dd>
                <dt>devices</dt><dd id="p-devices">0</dd>
                <dt>reconnects</dt><dd id="p-reconnects">0</dd>
                <dt>stale</dt><dd id="p-stale">0</dd>
                <dt>following</dt><dd id="p-follow">—</dd>
                <dt>bbox</dt><dd id="p-bbox"></dd>
              </dl>
              <button id="b-unfollow">Stop following</button>
              <button id="b-fit">Reset view</button>
              <p>Drag to pan, wheel to zoom: each change switches the area subscription (a new <code>sub</code>).
              Click a device to follow it. <code>stale</code> counts frames of an old <code>sub</code>
              after the new one was confirmed; it must stay 0.</p>
              <p id="p-error"></p>
            </aside>
            <script>
        """#

    /// The HTML after the script's body.
    static let htmlTail = #"""
            </script>
            </body>
            </html>
        """#
}
