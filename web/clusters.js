// Map code as written for supercluster's output (getClusters): a cluster is a feature with
// properties.cluster, labelled with point_count_abbreviated, zoomed into at its expansion zoom;
// features are kept by their numeric id (what MapLibre's promoteId / feature-state need), so a
// marker that is still in the next answer is reused, not drawn again. Only the URL is Taxipot's.
'use strict';
const map = L.map('map', { zoomControl: true, maxZoom: 18 }).setView([37.565, 126.978], 13);
const markers = new Map(); // feature id (number) -> marker
const state = { answers: 0, drawn: 0, reused: 0, error: null };
window.superclusterPage = { map, markers, state };

function markerFor(f) {
  const [lon, lat] = f.geometry.coordinates;
  const p = f.properties;
  if (p.cluster) {
    const size = 26 + Math.min(24, Math.log2(p.point_count) * 4);
    const icon = L.divIcon({ className: '', iconSize: [size, size],
      html: `<div class="sc-cluster" style="width:${size}px;height:${size}px" data-feature-id="${f.id}">${p.point_count_abbreviated}</div>` });
    const m = L.marker([lat, lon], { icon });
    m.on('click', () => map.setView([lat, lon], Math.min(p.expansion_zoom, map.getMaxZoom())));
    return m;
  }
  const m = L.circleMarker([lat, lon], { radius: 6, color: '#fff', weight: 2, fillColor: '#f59f00', fillOpacity: 1 });
  m.featureId = f.id;
  return m;
}

async function refresh() {
  const b = map.getBounds();
  const bbox = [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()].map(v => v.toFixed(6)).join(',');
  const zoom = Math.floor(map.getZoom());
  try {
    const r = await fetch(`/v1/clusters?bbox=${bbox}&zoom=${zoom}`);
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    const fc = await r.json();
    const seen = new Set();
    for (const f of fc.features) {
      if (typeof f.id !== 'number') throw new Error(`feature id ${JSON.stringify(f.id)} is not a number`);
      seen.add(f.id);
      if (markers.has(f.id)) { state.reused++; continue; }
      const m = markerFor(f).addTo(map);
      markers.set(f.id, m);
      state.drawn++;
    }
    for (const [id, m] of markers) if (!seen.has(id)) { m.remove(); markers.delete(id); }
    state.answers++;
    state.shown = { bbox, zoom, ids: [...seen], contentType: r.headers.get('content-type') };
  } catch (e) {
    state.error = String(e);
  }
}
map.on('moveend', refresh);
refresh();
