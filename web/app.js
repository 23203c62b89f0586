// The Taxipot map page: the engine's own road map, place search, route and fare, open parties.
// Plain script over Leaflet (Debian's libjs-leaflet, served at /leaflet/); every request goes to
// the serving engine. Endpoints added later (/v1/match, /v1/coverage, estimated quotes) are
// used when the server's OpenAPI document lists them, so the page works before and after.
'use strict';

(function () {
  // ---- Words -------------------------------------------------------------------------------
  const WORDS = {
    ko: {
      title: '택시팟 엔진', origin: '출발지', destination: '도착지', searchPlaceholder: '장소, 역, 주소 검색',
      pinHint: '지도를 움직여 위치 선택', panelToggle: '패널 접기/펴기', departAt: '출발 시각', riders: '인원', split: '나누기',
      splitEqual: '똑같이', splitByLeg: '탄 거리만큼', splitProportional: '거리 비례', estimated: '추정',
      distance: '거리', duration: '시간', base: '기본요금', distanceFare: '거리요금', timeFare: '시간요금',
      night: '심야할증', outOfCity: '시계외할증', rounding: '단수조정', total: '합계', shares: '1인당 부담',
      matches: '같이 탈 수 있는 팟', party: '팟 정보', roads: '도로', boundaries: '구·동 경계',
      coverage: '서비스 지역', parties: '모집 중인 팟', setHere: '여기로 설정', rider: '탑승자',
      minutes: '분', km: 'km', won: '원', noMatches: '맞는 팟이 없습니다', seatsLeft: '남은 자리',
      departs: '출발', walk: '도보', detour: '우회', saving: '절약', pooled: '합승 요금', solo: '혼자',
      estimatedNote: '도로망 밖: 직선거리로 추정한 값입니다', fareRange: '예상 범위', noPlace: '검색 결과 없음',
      unknownPlace: '이름 없는 곳', clickedPoint: '지도에서 고른 곳', loading: '불러오는 중…',
      partyTitle: '제목', partyDestination: '목적지', seats: '자리', host: '모집자',
    },
    en: {
      title: 'Taxipot engine', origin: 'From', destination: 'To', searchPlaceholder: 'Search places, stations, addresses',
      pinHint: 'Move the map to pick the point', panelToggle: 'Fold or unfold the panel', departAt: 'Departure', riders: 'Riders', split: 'Split',
      splitEqual: 'Equal', splitByLeg: 'By leg', splitProportional: 'Proportional', estimated: 'Estimate',
      distance: 'Distance', duration: 'Time', base: 'Base fare', distanceFare: 'Distance', timeFare: 'Time',
      night: 'Night surcharge', outOfCity: 'Out of city', rounding: 'Rounding', total: 'Total', shares: 'Per rider',
      matches: 'Parties you could join', party: 'Party', roads: 'Roads', boundaries: 'Districts',
      coverage: 'Served area', parties: 'Open parties', setHere: 'Set here', rider: 'Rider',
      minutes: 'min', km: 'km', won: 'KRW', noMatches: 'No matching party', seatsLeft: 'seats left',
      departs: 'departs', walk: 'walk', detour: 'detour', saving: 'saving', pooled: 'pooled', solo: 'solo',
      estimatedNote: 'Outside the road network: estimated from the straight-line distance', fareRange: 'Likely range',
      noPlace: 'No place found', unknownPlace: 'Unnamed place', clickedPoint: 'Point on the map', loading: 'Loading…',
      partyTitle: 'Title', partyDestination: 'Destination', seats: 'seats', host: 'Host',
    },
  };
  let lang = 'ko';
  const t = (key) => WORDS[lang][key] || WORDS.ko[key] || key;

  function applyWords() {
    document.documentElement.lang = lang;
    document.querySelectorAll('[data-i18n]').forEach((el) => { el.textContent = t(el.dataset.i18n); });
    document.querySelectorAll('[data-i18n-placeholder]').forEach((el) => { el.placeholder = t(el.dataset.i18nPlaceholder); });
    document.querySelectorAll('[data-i18n-title]').forEach((el) => { el.title = t(el.dataset.i18nTitle); });
    document.getElementById('lang').textContent = lang === 'ko' ? 'EN' : '한국어';
    document.title = t('title');
  }

  const $ = (id) => document.getElementById(id);
  const fmtKrw = (n) => `${Number(n).toLocaleString('ko-KR')}${lang === 'ko' ? '원' : ' KRW'}`;
  const fmtKm = (m) => `${(m / 1000).toFixed(1)} km`;
  const fmtMin = (s) => `${Math.round(s / 60)}${lang === 'ko' ? '분' : ' min'}`;

  // ---- API ---------------------------------------------------------------------------------
  /** GET or POST JSON; resolves to {ok, status, body}. Aborted requests reject with AbortError. */
  async function api(path, { method = 'GET', body, signal } = {}) {
    const init = { method, signal, headers: {} };
    if (body !== undefined) { init.body = JSON.stringify(body); init.headers['Content-Type'] = 'application/json'; }
    const res = await fetch(path, init);
    let json = null;
    try {
      json = await res.json();
    } catch (e) {
      if (e.name === 'AbortError') throw e;  // aborted while the body was read: the caller drops it
      json = null;
    }
    // A 2xx whose body is not JSON counts as a failure, so callers may read the body when ok.
    return { ok: res.ok && json !== null, status: res.status, body: json };
  }
  // The engine's error answers in the page's words (the engine's own message follows).
  const ERRORS = {
    ko: { too_far_from_road: '도로에서 너무 멉니다 (도로망 밖)', outside_coverage: '서비스 지역 밖입니다',
      no_route: '두 곳을 잇는 도로가 없습니다', outside_fare_regions: '요금 지역 밖입니다', no_schedule: '그 시각의 요금표가 없습니다' },
    en: { too_far_from_road: 'Too far from a road (outside the road network)', outside_coverage: 'Outside the served area',
      no_route: 'No road joins the two points', outside_fare_regions: 'Outside the fare regions', no_schedule: 'No fare schedule for that time' },
  };
  const errorText = (r) => {
    if (!r.body || !r.body.error) return `HTTP ${r.status}`;
    const e = r.body.error, words = ERRORS[lang][e.code];
    return words ? `${words}: ${e.message}` : `${e.message} (${e.code})`;
  };

  // What the server offers beyond today's endpoints, from its OpenAPI document.
  const features = { match: false, coverage: false, estimate: false, matchEstimate: false };

  async function detectFeatures() {
    const r = await api('/openapi.json');
    if (!r.ok || !r.body || !r.body.paths) return;
    const paths = r.body.paths;
    features.match = !!(paths['/v1/match'] && paths['/v1/match'].get);
    features.coverage = !!(paths['/v1/coverage'] && paths['/v1/coverage'].get);
    const matchParams = (features.match && paths['/v1/match'].get.parameters) || [];
    features.matchEstimate = matchParams.some((p) => p.name === 'estimate');
    // A schema may be a reference to one of the document's named schemas.
    const named = (r.body.components && r.body.components.schemas) || {};
    const resolve = (s) => { for (let i = 0; s && s.$ref && i < 8; i++) s = named[s.$ref.split('/').pop()]; return s; };
    const quote = paths['/v1/quote'] && paths['/v1/quote'].post;
    const media = quote && quote.requestBody && quote.requestBody.content && quote.requestBody.content['application/json'];
    const body = resolve(media && media.schema);
    features.estimate = !!(body && body.properties && body.properties.estimate);
  }

  // ---- Map ---------------------------------------------------------------------------------
  L.Icon.Default.imagePath = '/leaflet/images/';
  const map = L.map('map', { preferCanvas: true, zoomControl: true, attributionControl: false, minZoom: 8, maxZoom: 19 })
    .setView([37.5665, 126.978], 13);
  map.createPane('coveragePane').style.zIndex = 250;
  map.createPane('boundaryPane').style.zIndex = 300;
  map.createPane('roadPane').style.zIndex = 350;
  const roadRenderer = L.canvas({ pane: 'roadPane', padding: 0.3 });
  const boundaryRenderer = L.canvas({ pane: 'boundaryPane', padding: 0.3 });
  // The route and party lines are few: SVG, so each is an element (with a class) in the page.
  const lineRenderer = L.svg({ padding: 0.3 });

  // How much an address answer of /v1/places knows (its `precision`).
  const PRECISION_LABEL = { interpolated: 'placed along the road', road: 'road only', dong: '동 only' };

  const ROAD_STYLE = {
    motorway: { color: '#e8590c', weight: 4 }, trunk: { color: '#f08c00', weight: 3.5 },
    primary: { color: '#fab005', weight: 3 }, secondary: { color: '#ffd43b', weight: 2.5 },
    tertiary: { color: '#adb5bd', weight: 2 }, unclassified: { color: '#ced4da', weight: 1.5 },
    residential: { color: '#ced4da', weight: 1.2 }, living_street: { color: '#dee2e6', weight: 1 },
    service: { color: '#e3e7ec', weight: 0.8 },
  };
  const roadLayer = L.geoJSON(null, {
    renderer: roadRenderer, interactive: false,
    style: (f) => Object.assign({ opacity: 1, lineCap: 'round' }, ROAD_STYLE[f.properties.class] || ROAD_STYLE.service),
  }).addTo(map);
  const boundaryLayer = L.geoJSON(null, {
    renderer: boundaryRenderer, interactive: false,
    style: (f) => (f.properties.level === 'sigungu'
      ? { color: '#7048e8', weight: 2, opacity: 0.7, fill: false }
      : { color: '#9775fa', weight: 1, opacity: 0.6, dashArray: '4 4', fill: false }),
  }).addTo(map);
  const boundaryLabels = L.layerGroup().addTo(map);
  const coverageLayer = L.geoJSON(null, {
    pane: 'coveragePane', interactive: false,
    style: { color: '#37b24d', weight: 1, fillColor: '#8ce99a', fillOpacity: 0.15 },
  });
  const clusterLayer = L.layerGroup().addTo(map);
  const matchLayer = L.layerGroup().addTo(map);
  const partyLayer = L.layerGroup().addTo(map);
  const routeLayer = L.layerGroup().addTo(map);

  /** The view as minLon,minLat,maxLon,maxLat, optionally padded by a fraction of its size. */
  function bboxOf(bounds) {
    return [bounds.getWest(), bounds.getSouth(), bounds.getEast(), bounds.getNorth()].map((v) => v.toFixed(6)).join(',');
  }

  // Roads and boundaries: fetched for the view padded by a quarter, kept while the view stays inside.
  const baseState = { roads: null, boundaries: null };
  const baseAbort = { roads: null, boundaries: null };

  async function refreshBaseLayer(kind, layer, path, enabled) {
    const zoom = Math.floor(map.getZoom());
    const view = map.getBounds();
    const have = baseState[kind];
    if (!enabled()) { layer.clearLayers(); baseState[kind] = null; return; }
    if (have && have.zoom === zoom && have.bounds.contains(view)) return;
    const bounds = view.pad(0.25);
    if (baseAbort[kind]) baseAbort[kind].abort();
    const ctl = new AbortController();
    baseAbort[kind] = ctl;
    try {
      const r = await api(`${path}?bbox=${bboxOf(bounds)}&zoom=${zoom}`, { signal: ctl.signal });
      if (!r.ok || !r.body) { showMessage(errorText(r)); return; }
      layer.clearLayers();
      layer.addData(r.body);
      baseState[kind] = { zoom, bounds, bytes: 0, features: r.body.features.length };
      if (kind === 'boundaries') labelBoundaries(r.body, zoom);
    } catch (e) {
      if (e.name !== 'AbortError') throw e;
    }
  }

  function labelBoundaries(fc, zoom) {
    boundaryLabels.clearLayers();
    const level = zoom >= 15 ? 'emd' : 'sigungu';  // 동 names only where they fit
    for (const f of fc.features) {
      if (f.properties.level !== level || !f.properties.name) continue;
      const center = L.geoJSON(f).getBounds().getCenter();
      boundaryLabels.addLayer(L.tooltip({ permanent: true, direction: 'center', className: 'boundary-label', interactive: false })
        .setLatLng(center).setContent(f.properties.name));
    }
  }

  function refreshBase() {
    refreshBaseLayer('roads', roadLayer, '/v1/roads', () => $('show-roads').checked);
    refreshBaseLayer('boundaries', boundaryLayer, '/v1/boundaries', () => $('show-boundaries').checked);
    if (!$('show-boundaries').checked) boundaryLabels.clearLayers();
  }

  async function loadCoverage() {
    if (!features.coverage) return;
    const r = await api('/v1/coverage');
    if (!r.ok) return;
    coverageLayer.addData(r.body);
    coverageLayer.addTo(map);
    $('coverage-toggle').hidden = false;
  }

  // ---- Parties as clusters -----------------------------------------------------------------
  const clusterState = { seq: 0, shown: null, ctl: null };

  function clusterIcon(count) {
    const size = count < 10 ? 30 : count < 100 ? 36 : count < 1000 ? 44 : 52;
    return L.divIcon({
      className: '', iconSize: [size, size],
      html: `<div class="cluster-marker" data-count="${count}" style="width:${size}px;height:${size}px">${count}</div>`,
    });
  }

  async function refreshClusters() {
    if (!$('show-parties').checked) { clusterLayer.clearLayers(); clusterState.shown = null; return; }
    const zoom = Math.floor(map.getZoom());
    const bbox = bboxOf(map.getBounds());
    const url = `/v1/clusters?bbox=${bbox}&zoom=${zoom}`;
    const seq = ++clusterState.seq;
    if (clusterState.ctl) clusterState.ctl.abort();
    const ctl = new AbortController();
    clusterState.ctl = ctl;
    const started = performance.now();
    let r;
    try { r = await api(url, { signal: ctl.signal }); } catch (e) { if (e.name === 'AbortError') return; throw e; }
    if (seq !== clusterState.seq) return;
    if (!r.ok || !r.body) { clusterLayer.clearLayers(); clusterState.shown = { url, error: r.body || r.status }; return; }
    const markers = [];
    for (const f of r.body.features) {
      const [lon, lat] = f.geometry.coordinates;
      const p = f.properties;
      if (p.cluster) {
        const m = L.marker([lat, lon], { icon: clusterIcon(p.point_count), keyboard: false });
        m.on('click', () => map.setView([lat, lon], Math.min(p.expansion_zoom, map.getMaxZoom())));
        markers.push(m);
      } else {
        const m = L.marker([lat, lon], {
          icon: L.divIcon({ className: '', iconSize: [18, 18], html: `<div class="party-marker" data-party-id="${escapeAttr(p.party_id)}"></div>` }),
          keyboard: false,
        });
        m.on('click', () => showParty(p.party_id));
        markers.push(m);
      }
    }
    clusterLayer.clearLayers();
    markers.forEach((m) => clusterLayer.addLayer(m));
    const shown = { url, zoom, bbox, features: r.body.features.length, ms: performance.now() - started, at: performance.now() };
    clusterState.shown = shown;
    requestAnimationFrame(() => { shown.painted = performance.now(); });
  }

  function escapeAttr(s) { return String(s).replace(/[&"<>]/g, (c) => ({ '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' }[c])); }
  function escapeHTML(s) { return escapeAttr(s); }

  async function showParty(id) {
    const r = await api(`/v1/parties/${encodeURIComponent(id)}`);
    partyLayer.clearLayers();
    if (!r.ok) { showMessage(errorText(r)); return; }
    const p = r.body;
    const o = [p.origin[1], p.origin[0]], d = [p.destination[1], p.destination[0]];
    partyLayer.addLayer(L.polyline([o, d], { color: '#e8590c', weight: 2, dashArray: '6 6', renderer: lineRenderer, className: 'party-line' }));
    partyLayer.addLayer(L.circleMarker(d, { radius: 6, color: '#e8590c', fillOpacity: 0.8, renderer: lineRenderer }));
    $('party-panel').hidden = false;
    $('party-detail').innerHTML = `<div data-party-id="${escapeAttr(p.id)}"><b>${escapeHTML(p.title || p.id)}</b></div>`
      + `<div>${t('departs')} ${escapeHTML(formatTime(p.depart_at))} · ${p.seats_left}/${p.seats_total} ${t('seatsLeft')}</div>`
      + (p.riders ? `<div>${t('riders')}: ${p.riders.map((x) => escapeHTML(x.rider_id)).join(', ')}</div>` : '');
  }

  function formatTime(iso) {
    const m = /T(\d\d:\d\d)/.exec(iso || '');
    return m ? `${iso.slice(5, 10)} ${m[1]}` : iso;
  }

  // ---- Trip: origin, destination, form -----------------------------------------------------
  const trip = { origin: null, destination: null };
  const endMarkers = { origin: null, destination: null };

  function endIcon(which) {
    return L.divIcon({
      className: '', iconSize: [26, 26], iconAnchor: [13, 28],
      html: `<div class="end-marker ${which}"><span>${which === 'origin' ? (lang === 'ko' ? '출' : 'A') : (lang === 'ko' ? '도' : 'B')}</span></div>`,
    });
  }

  function setEnd(which, lat, lon, label) {
    trip[which] = { lat, lon, label };
    $(`${which}-chosen`).textContent = label;
    $(`${which}-chosen`).dataset.lon = lon;
    $(`${which}-chosen`).dataset.lat = lat;
    if (!endMarkers[which]) {
      const m = L.marker([lat, lon], { icon: endIcon(which), draggable: true, zIndexOffset: 1000 }).addTo(map);
      m.on('dragend', () => {
        const ll = m.getLatLng();
        setEndFromPoint(which, ll.lat, ll.lng);
      });
      endMarkers[which] = m;
    } else {
      endMarkers[which].setLatLng([lat, lon]);
    }
    requestQuote();
  }

  /** Sets an end from a point, labelled by the reverse-geocoded 동. */
  async function setEndFromPoint(which, lat, lon) {
    const label = await placeName(lat, lon);
    $(`${which}-input`).value = label;
    setEnd(which, lat, lon, label);
  }

  async function placeName(lat, lon) {
    const r = await api(`/v1/reverse?at=${lon.toFixed(7)},${lat.toFixed(7)}&limit=1`);
    if (!r.ok) return t('clickedPoint');
    const region = r.body.region;
    const near = r.body.places && r.body.places[0];
    const dong = region ? (region.dong && region.dong.name) || region.full_name : '';
    if (near && dong) return `${near.name} (${dong})`;
    return dong || (near && near.name) || t('unknownPlace');
  }

  map.on('click', (e) => {
    if (pin.target) return;
    const which = !trip.origin ? 'origin' : 'destination';
    setEndFromPoint(which, e.latlng.lat, e.latlng.lng);
  });

  // ---- Search with suggestions -------------------------------------------------------------
  function wireSearch(which) {
    const input = $(`${which}-input`);
    const list = $(`${which}-suggestions`);
    let timer = null, ctl = null, items = [], active = -1;

    function render() {
      list.innerHTML = '';
      items.forEach((p, i) => {
        const li = document.createElement('li');
        li.setAttribute('role', 'option');
        li.dataset.placeId = p.id;
        if (i === active) li.className = 'active';
        li.innerHTML = `<div class="name">${escapeHTML(p.name)}</div><div class="meta">${escapeHTML(p.precision ? `address, ${PRECISION_LABEL[p.precision] || p.precision}` : p.category)} · ${escapeHTML(p.address)}</div>`;
        li.addEventListener('mousedown', (e) => { e.preventDefault(); choose(p); });
        list.appendChild(li);
      });
    }
    function choose(p) {
      items = []; render();
      input.value = p.name;
      setEnd(which, p.lat, p.lon, `${p.name} · ${p.address}`);
      const other = which === 'origin' ? trip.destination : trip.origin;
      if (other) map.fitBounds(L.latLngBounds([[p.lat, p.lon], [other.lat, other.lon]]).pad(0.2));
      else map.setView([p.lat, p.lon], Math.max(map.getZoom(), 15));
    }
    async function suggest() {
      const q = input.value.trim();
      if (ctl) ctl.abort();
      if (!q) { items = []; render(); return; }
      ctl = new AbortController();
      const c = map.getCenter();
      try {
        const r = await api(`/v1/places?q=${encodeURIComponent(q)}&near=${c.lng.toFixed(6)},${c.lat.toFixed(6)}&limit=8`, { signal: ctl.signal });
        items = r.ok ? r.body.places : [];
        active = -1;
        render();
      } catch (e) { if (e.name !== 'AbortError') throw e; }
    }
    input.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(suggest, 80); });
    input.addEventListener('keydown', (e) => {
      if (!items.length) return;
      if (e.key === 'ArrowDown') { active = (active + 1) % items.length; render(); e.preventDefault(); }
      else if (e.key === 'ArrowUp') { active = (active + items.length - 1) % items.length; render(); e.preventDefault(); }
      else if (e.key === 'Enter') { choose(items[Math.max(0, active)]); e.preventDefault(); }
      else if (e.key === 'Escape') { items = []; render(); }
    });
    input.addEventListener('blur', () => setTimeout(() => { items = []; render(); }, 150));
  }

  // ---- Fixed pin: scroll the map under it --------------------------------------------------
  const pin = { target: null, seq: 0 };

  function startPin(which) {
    document.querySelectorAll('.pin-button').forEach((b) => b.classList.toggle('active', b.dataset.target === which && pin.target !== which));
    if (pin.target === which) { stopPin(); return; }
    pin.target = which;
    const end = trip[which];
    if (end) map.setView([end.lat, end.lon], map.getZoom());
    $('center-pin').hidden = false;
    updatePinLabel();
  }
  function stopPin() {
    pin.target = null;
    $('center-pin').hidden = true;
    document.querySelectorAll('.pin-button').forEach((b) => b.classList.remove('active'));
  }
  async function updatePinLabel() {
    if (!pin.target) return;
    const seq = ++pin.seq;
    const c = map.getCenter();
    const r = await api(`/v1/reverse?at=${c.lng.toFixed(7)},${c.lat.toFixed(7)}&limit=0`);
    if (seq !== pin.seq) return;
    const region = r.ok ? r.body.region : null;
    $('center-pin-label').textContent = region ? (region.full_name || '') : t('unknownPlace');
    $('center-pin-label').dataset.dong = region && region.dong ? region.dong.name : '';
  }
  $('center-pin-confirm').addEventListener('click', () => {
    const which = pin.target;
    if (!which) return;
    const c = map.getCenter();
    stopPin();
    setEndFromPoint(which, c.lat, c.lng);
  });
  document.querySelectorAll('.pin-button').forEach((b) => b.addEventListener('click', () => startPin(b.dataset.target)));

  // ---- Quote -------------------------------------------------------------------------------
  const quoteState = { seq: 0, last: null };

  function quoteBody() {
    const body = {
      origin: { lon: trip.origin.lon, lat: trip.origin.lat },
      destination: { lon: trip.destination.lon, lat: trip.destination.lat },
      riders: Math.max(1, Math.min(4, parseInt($('riders').value, 10) || 1)),
      split: $('split').value,
    };
    const depart = $('depart-at').value;
    if (depart) body.depart_at = depart.length === 16 ? `${depart}:00` : depart;
    return body;
  }

  async function requestQuote() {
    if (!trip.origin || !trip.destination) return;
    const seq = ++quoteState.seq;
    const body = quoteBody();
    let r = await api('/v1/quote', { method: 'POST', body });
    if (!r.ok && r.status === 422 && features.estimate) {
      const retry = await api('/v1/quote', { method: 'POST', body: Object.assign({ estimate: 'allow' }, body) });
      if (retry.ok) r = retry;
    }
    if (seq !== quoteState.seq) return;
    quoteState.last = { body, response: r.body, status: r.status };
    routeLayer.clearLayers();
    if (!r.ok) {
      $('result').hidden = true;
      showMessage(errorText(r));
      $('message').dataset.code = r.body && r.body.error ? r.body.error.code : '';
      renderMatches(null);
      return;
    }
    showMessage('');
    renderQuote(r.body);
    requestMatches(body);
  }

  function renderQuote(q) {
    const estimated = !!q.estimated;
    const route = q.route || q.trip || {};
    let line = [];
    if (route.geometry && typeof route.geometry === 'string') line = decodePolyline6(route.geometry);
    else if (route.geometry && route.geometry.coordinates) line = route.geometry.coordinates.map(([x, y]) => [y, x]);
    if (line.length < 2) line = [[trip.origin.lat, trip.origin.lon], [trip.destination.lat, trip.destination.lon]];
    routeLayer.addLayer(L.polyline(line, estimated
      ? { color: '#f08c00', weight: 4, dashArray: '8 8', className: 'route-line estimated', renderer: lineRenderer }
      : { color: '#1c7ed6', weight: 5, opacity: 0.85, className: 'route-line', renderer: lineRenderer }));
    $('result').hidden = false;
    $('estimate-badge').hidden = !estimated;
    $('route-distance').textContent = fmtKm(route.distance_m);
    $('route-distance').dataset.m = route.distance_m;
    $('route-duration').textContent = fmtMin(route.duration_s);
    $('route-duration').dataset.s = route.duration_s;
    const f = q.fare;
    const parts = { base: f.base_krw, distance: f.distance_krw, time: f.time_krw, night: f.night_krw,
      'out-of-city': f.out_of_city_krw, rounding: f.rounding_krw, total: f.total_krw };
    for (const [k, v] of Object.entries(parts)) {
      $(`fare-${k}`).textContent = fmtKrw(v);
      $(`fare-${k}`).dataset.krw = v;
    }
    const range = q.estimated && q.estimated.fare_range_krw;
    $('fare-range').hidden = !range;
    $('fare-range').textContent = range ? `${t('estimatedNote')} · ${t('fareRange')} ${fmtKrw(range[0])} – ${fmtKrw(range[1])}` : '';
    const shares = $('shares');
    shares.innerHTML = '';
    (q.split || []).forEach((s) => {
      const li = document.createElement('li');
      li.dataset.krw = s.krw;
      li.innerHTML = `${t('rider')} ${s.rider + 1}: <span class="krw">${fmtKrw(s.krw)}</span>`;
      shares.appendChild(li);
    });
  }

  function decodePolyline6(s) {
    const out = [];
    let i = 0, lat = 0, lon = 0;
    while (i < s.length) {
      for (const which of [0, 1]) {
        let shift = 0, result = 0, b;
        do { b = s.charCodeAt(i++) - 63; result |= (b & 0x1f) << shift; shift += 5; } while (b >= 0x20);
        const d = (result & 1) ? ~(result >> 1) : (result >> 1);
        if (which === 0) lat += d; else lon += d;
      }
      out.push([lat / 1e6, lon / 1e6]);
    }
    return out;
  }

  // ---- Matching parties (/v1/match, when the server has it) --------------------------------
  async function requestMatches(body) {
    if (!features.match) return;
    let q = `/v1/match?origin=${body.origin.lon},${body.origin.lat}&destination=${body.destination.lon},${body.destination.lat}&seats=${body.riders}`;
    if (body.depart_at) q += `&depart_at=${encodeURIComponent(body.depart_at)}`;
    if (features.matchEstimate) q += '&estimate=allow';
    const r = await api(q);
    renderMatches(r.ok ? r.body.matches || [] : null);
  }

  function renderMatches(matches) {
    matchLayer.clearLayers();
    $('matches-panel').hidden = !features.match || matches === null;
    const list = $('matches');
    list.innerHTML = '';
    if (!matches) return;
    if (!matches.length) { list.innerHTML = `<li>${t('noMatches')}</li>`; return; }
    matches.forEach((m) => {
      const p = m.party;
      const li = document.createElement('li');
      li.dataset.partyId = p.id;
      const price = m.price || {};
      li.innerHTML = `<b>${escapeHTML(p.title || p.id)}</b> · ${t('departs')} ${escapeHTML(formatTime(p.depart_at))}<br>`
        + `${t('walk')} ${Math.round(m.walk_m)} m · ${t('detour')} ${m.detour ? Math.round(m.detour.pct) : 0}% · `
        + `${t('pooled')} ${fmtKrw(price.pooled_krw)} (${t('saving')} ${fmtKrw(price.saving_krw)})`
        + (m.estimated ? ` <span class="badge">${t('estimated')}</span>` : '');
      const marker = L.marker([p.origin[1], p.origin[0]], {
        icon: L.divIcon({ className: '', iconSize: [22, 22], html: `<div class="party-marker match" data-party-id="${escapeAttr(p.id)}"></div>` }),
        zIndexOffset: 500,
      });
      marker.on('click', () => highlight(p.id));
      matchLayer.addLayer(marker);
      li.addEventListener('click', () => { highlight(p.id); showParty(p.id); });
      list.appendChild(li);
    });
  }
  function highlight(id) {
    document.querySelectorAll('#matches li').forEach((li) => li.classList.toggle('highlight', li.dataset.partyId === id));
  }

  // ---- Misc --------------------------------------------------------------------------------
  function showMessage(text) { $('message').textContent = text; }

  function defaultDeparture() {
    // Seoul wall-clock time (UTC+9, no summer time) 15 minutes from now: the engine reads a time
    // without offset as Seoul time, wherever the browser is.
    const d = new Date(Date.now() + 15 * 60000 + 9 * 3600000);
    const pad = (n) => String(n).padStart(2, '0');
    return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
  }

  async function showAttribution() {
    const r = await api('/health');
    if (r.ok && r.body.dataset) $('attribution').textContent = `${r.body.dataset.name} ${r.body.dataset.version} · © OpenStreetMap contributors`;
  }

  $('lang').addEventListener('click', () => {
    lang = lang === 'ko' ? 'en' : 'ko';
    applyWords();
    for (const which of ['origin', 'destination']) if (endMarkers[which]) endMarkers[which].setIcon(endIcon(which));
    if (quoteState.last && quoteState.last.status === 200) renderQuote(quoteState.last.response);
  });
  // Phones: the panel is a sheet over the map's bottom edge, folded to its header at first so
  // the map takes the screen; the toggle unfolds it (desktop: the toggle is hidden, never folded).
  function setFolded(folded) {
    $('panel').classList.toggle('folded', folded);
    $('panel-toggle').setAttribute('aria-expanded', String(!folded));
    $('panel-toggle').textContent = folded ? '▴' : '▾';
  }
  $('panel-toggle').addEventListener('click', () => setFolded(!$('panel').classList.contains('folded')));
  const phone = window.matchMedia('(max-width: 700px)');
  setFolded(phone.matches);
  phone.addEventListener('change', (e) => setFolded(e.matches));
  ['riders', 'split', 'depart-at'].forEach((id) => $(id).addEventListener('change', requestQuote));
  $('show-roads').addEventListener('change', refreshBase);
  $('show-boundaries').addEventListener('change', refreshBase);
  $('show-parties').addEventListener('change', refreshClusters);
  $('show-coverage').addEventListener('change', () => {
    if ($('show-coverage').checked) coverageLayer.addTo(map); else map.removeLayer(coverageLayer);
  });

  // Clusters first: the base layers (up to about 1 MB to parse and draw) wait for them, so a
  // pan or zoom shows its parties without queueing behind the road map.
  map.on('moveend', () => { refreshClusters().finally(refreshBase); updatePinLabel(); });

  // Exposed for tests and for people reading the page in the browser's console.
  window.taxipot = { map, trip, features, clusters: clusterState, quote: quoteState, base: baseState, refreshClusters };

  $('depart-at').value = defaultDeparture();
  applyWords();
  wireSearch('origin');
  wireSearch('destination');
  refreshClusters().finally(refreshBase);
  showAttribution();
  detectFeatures().then(loadCoverage).finally(() => { document.body.dataset.ready = 'true'; });
})();
