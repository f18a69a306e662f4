// The operator console: plain ES module, no build step, no third-party code. It talks only to the admin API
// (docs/http-api.md, Admin endpoints) with the operator's token, kept in this tab's sessionStorage.

const TOKEN_KEY = 'flash-coupon.operator-token';
const POLL_MS = 1000;          // the live panel's poll of GET /admin/v1/coupons/{id}
const LIST_MS = 5000;          // the event list's refresh
const WINDOW_MS = 5 * 60_000;  // the chart's span

const $ = (selector) => document.querySelector(selector);
const number = new Intl.NumberFormat();

let selectedId = null;
let samples = [];          // [{t, admitted, issued}] of the selected event, oldest first
let pollTimer = null;
let listTimer = null;
let loadTimer = null;
let lastLoad = null;       // the previous GET /admin/v1/overload and when it came: {t, refused}

// ---- API ------------------------------------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
  }
}

async function api(method, path, body) {
  const headers = { Authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY)}`, Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (response.status === 401) {
    signOut('Your token was refused (missing, expired or wrongly signed). Sign in again.');
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

// ---- sign in --------------------------------------------------------------------------------------------------------

function showSignIn(message = '') {
  stopTimers();
  $('#app-view').hidden = true;
  $('#sign-out').hidden = true;
  $('#sign-in-view').hidden = false;
  $('#sign-in-error').textContent = message;
  $('#token').focus();
}

function signOut(message) {
  sessionStorage.removeItem(TOKEN_KEY);
  selectedId = null;
  showSignIn(message);
}

async function signIn(token) {
  sessionStorage.setItem(TOKEN_KEY, token.trim());
  try {
    await loadEvents();
  } catch (e) {
    if (e.status === 403) signOut('This token is valid but has no coupon-admin role.');
    else if (e.status !== 401) signOut(`Could not reach the API: ${e.message}`);
    return;
  }
  $('#sign-in-view').hidden = true;
  $('#app-view').hidden = false;
  $('#sign-out').hidden = false;
  listTimer = setInterval(() => loadEvents().catch(() => {}), LIST_MS);
  loadOverload().catch(() => {});
  loadTimer = setInterval(() => loadOverload().catch(() => {}), POLL_MS);
}

function stopTimers() {
  clearInterval(pollTimer);
  clearInterval(listTimer);
  clearInterval(loadTimer);
  pollTimer = listTimer = loadTimer = null;
  lastLoad = null;
}

// ---- load: the overload guard of the instance that answers -------------------------------------------------------

async function loadOverload() {
  const load = await api('GET', '/admin/v1/overload');
  const now = Date.now();
  const set = (key, value) => { document.querySelector(`[data-load="${key}"]`).textContent = value; };
  set('limit', load.enabled ? number.format(load.limit) : 'off');
  set('inFlight', number.format(load.inFlight));
  set('refused', number.format(load.refused));
  // per second since the previous answer; a smaller count means another instance (or a restart) answered
  const perSecond = lastLoad && load.refused >= lastLoad.refused && now > lastLoad.t
    ? Math.round((load.refused - lastLoad.refused) * 1000 / (now - lastLoad.t)) : null;
  set('refusedPerSecond', perSecond === null ? '–' : number.format(perSecond));
  $('#load-note').hidden = load.enabled;
  lastLoad = { t: now, refused: load.refused };
}

// ---- event list -----------------------------------------------------------------------------------------------------

async function loadEvents() {
  const events = await api('GET', '/admin/v1/coupons');
  const body = $('#events tbody');
  body.replaceChildren(...events.map(eventRow));
  $('#events-empty').hidden = events.length > 0;
}

function eventRow(event) {
  const row = document.createElement('tr');
  row.dataset.id = event.id;
  row.tabIndex = 0;
  if (event.id === selectedId) row.classList.add('selected');
  const cells = [
    event.id,
    event.name,
    states(event),
    `${number.format(event.stats.admitted)} / ${number.format(event.totalQuantity)}`,
    number.format(event.stats.issued),
    number.format(event.issueRatePerSecond),
  ];
  cells.forEach((value, i) => {
    const cell = document.createElement('td');
    if (i >= 3) cell.className = 'num';
    if (value instanceof Node) cell.append(value); else cell.textContent = value;
    row.append(cell);
  });
  row.addEventListener('click', () => select(event.id));
  row.addEventListener('keydown', (e) => { if (e.key === 'Enter') select(event.id); });
  return row;
}

function badge(status) {
  const span = document.createElement('span');
  span.className = `badge ${status.toLowerCase()}`;
  span.textContent = status.replace('_', ' ');
  return span;
}

/** The member-facing status, and where the event is in its life once admission is over (draining, settled, retired). */
function states(event) {
  const cell = document.createDocumentFragment();
  cell.append(badge(event.status));
  if (AFTER_ADMISSION.includes(event.lifecycle)) cell.append(' ', badge(event.lifecycle));
  return cell;
}

const AFTER_ADMISSION = ['DRAINING', 'SETTLED', 'RETIRED'];

// ---- live panel -----------------------------------------------------------------------------------------------------

function select(id) {
  selectedId = id;
  samples = [];
  document.querySelectorAll('#events tbody tr').forEach((row) => row.classList.toggle('selected', Number(row.dataset.id) === id));
  $('#panel').hidden = false;
  $('#panel-message').textContent = '';
  $('#err-issueRatePerSecond-patch').textContent = '';
  $('#rate-input').value = '';
  clearInterval(pollTimer);
  poll();
  pollTimer = setInterval(poll, POLL_MS);
  $('#panel').scrollIntoView({ block: 'nearest' });
}

async function poll() {
  const id = selectedId;
  if (id === null) return;
  let event;
  try {
    event = await api('GET', `/admin/v1/coupons/${id}`);
  } catch (e) {
    $('#panel-message').textContent = `Could not refresh: ${e.message}`;
    return;
  }
  if (id !== selectedId) return;
  render(event);
  samples.push({ t: Date.now(), admitted: event.stats.admitted, issued: event.stats.issued });
  const cutoff = Date.now() - WINDOW_MS - POLL_MS;
  while (samples.length && samples[0].t < cutoff) samples.shift();
  drawChart();
}

// A fair start's draw: its commitment from creation, its odds while the window is open, its seed once made.
function renderDraw(event) {
  const line = $('#panel-draw');
  const draw = event.draw;
  line.hidden = !draw;
  if (!draw) {
    return;
  }
  const odds = `${number.format(draw.entrants)} entrants for ${number.format(draw.places)} places`;
  const commitment = draw.commitment ? `commitment ${draw.commitment}` : 'made before draws had seeds';
  if (draw.state === 'MADE') {
    line.textContent = `Draw made ${new Date(draw.drawnAt).toLocaleString()}: ${number.format(draw.entrants)} entrants, `
      + `${number.format(draw.placed)} placed; seed ${draw.seed ?? 'none'}, ${commitment}. `
      + `Anyone can check it: bin/verify-draw ${event.id}.`;
  } else if (draw.state === 'DRAWING') {
    line.textContent = `Draw being made: ${odds}; ${commitment}.`;
  } else {
    line.textContent = `Draw at ${new Date(draw.drawAt).toLocaleString()}, so far ${odds}; ${commitment}.`;
  }
}

/** What a coupon is worth, and what became of the issued ones (the admin view's benefit and redemption). */
function renderRedemption(event) {
  const b = event.benefit;
  const minimum = b && b.minOrderAmount > 0 ? ` on orders of ${number.format(b.minOrderAmount)} or more` : '';
  const cap = b && b.maxDiscount ? `, at most ${number.format(b.maxDiscount)}` : '';
  $('#panel-benefit').textContent = !b
    ? 'No benefit: the coupon has no value of its own.'
    : b.type === 'FIXED_AMOUNT'
      ? `Worth ${number.format(b.amount)} off${minimum}.`
      : `Worth ${b.percent}% off${cap}${minimum}.`;
  const counts = event.redemption ?? {};
  document.querySelectorAll('#redemption [data-redeemed]').forEach((el) => {
    el.textContent = number.format(counts[el.dataset.redeemed] ?? 0);
  });
}

function render(event) {
  $('#panel-title').textContent = `#${event.id} ${event.name}`;
  const status = $('#panel-status');
  status.className = `badge ${event.status.toLowerCase()}`;
  status.textContent = event.status.replace('_', ' ');
  const life = $('#panel-life');
  life.hidden = !AFTER_ADMISSION.includes(event.lifecycle);
  life.className = `badge ${event.lifecycle.toLowerCase()}`;
  life.textContent = event.lifecycle;
  const settled = event.settledAt ? ` Settled ${new Date(event.settledAt).toLocaleString()}.` : '';
  const retired = event.retiredAt
    ? ` Retired ${new Date(event.retiredAt).toLocaleString()}: final figures, kept in MySQL.`
    : '';
  $('#panel-life-text').textContent = `${settled}${retired}`;
  const closes = event.closeAt ? `, closes ${new Date(event.closeAt).toLocaleString()}` : '';
  const queueing = event.queueing === 'RANDOMIZED_START'
    ? `, fair start: the first ${number.format(event.queueingWindowSeconds)} s drawn at random at ${new Date(event.drawAt).toLocaleString()}`
    : ', first come, first served';
  $('#panel-window').textContent =
    `${number.format(event.totalQuantity)} coupons, opens ${new Date(event.openAt).toLocaleString()}${closes}, valid ${event.validDays} days${queueing}`;
  renderDraw(event);
  renderRedemption(event);
  loadGate(event.id);
  const values = { ...event.stats, waiting: event.waiting, remainingQuantity: event.remainingQuantity };
  document.querySelectorAll('#panel [data-stat]').forEach((el) => {
    el.textContent = number.format(values[el.dataset.stat] ?? 0);
  });
  $('#rate-now').textContent = number.format(event.issueRatePerSecond);
  renderPace(event.pace);
  const retiredEvent = event.lifecycle === 'RETIRED';
  $('#close').disabled = event.status === 'CLOSED' || retiredEvent;
  $('#rate-form').querySelectorAll('input, button').forEach((el) => { el.disabled = retiredEvent; });
}

/**
 * The rate the drainer really uses (below the operator's while the database cannot keep up, with the reason), the one
 * waiting estimates assume, and how far off the estimates given at admission turned out (measured by the api instance
 * that answered).
 */
function renderPace(pace) {
  $('#pace').hidden = !pace;
  if (!pace) return;
  const rate = (v) => number.format(Math.round(v * 10) / 10);
  $('#pace-effective').textContent = rate(pace.effectiveRatePerSecond);
  $('#pace-configured').textContent = rate(pace.configuredRatePerSecond);
  $('#pace-reason').textContent = pace.rateCutReason ? ` (cut: ${pace.rateCutReason})` : '';
  $('#pace-assumed').textContent = rate(pace.assumedRatePerSecond);
  const err = pace.estimateError;
  const pct = (v) => `${Math.round(v * 1000) / 10}%`;
  $('#pace-error').textContent = err && err.samples > 0
    ? `p50 ${pct(err.p50)}, p90 ${pct(err.p90)} over the last ${number.format(err.samples)} admissions.`
    : 'not measured yet (no admission of this instance has had its turn).';
}

/**
 * Admissions and issuances per second between successive polls, as two polylines. The time axis covers what was
 * watched so far, at least a minute and at most the last five.
 */
function drawChart() {
  const svg = $('#chart');
  const W = Math.max(svg.clientWidth, 200), H = 160, top = 16, bottom = 146;
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  const rates = [];
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1], b = samples[i];
    const seconds = Math.max((b.t - a.t) / 1000, 0.001);
    rates.push({
      t: b.t,
      admit: Math.max(0, (b.admitted - a.admitted) / seconds),
      issue: Math.max(0, (b.issued - a.issued) / seconds),
    });
  }
  const now = Date.now();
  const span = Math.min(WINDOW_MS, Math.max(60_000, samples.length ? now - samples[0].t : 0));
  const max = Math.max(1, ...rates.map((r) => Math.max(r.admit, r.issue)));
  const scale = niceCeiling(max);
  const x = (t) => W - ((now - t) / span) * W;
  const y = (v) => bottom - (v / scale) * (bottom - top);
  const line = (key) => rates.map((r) => `${x(r.t).toFixed(1)},${y(r[key]).toFixed(1)}`).join(' ');
  const last = rates[rates.length - 1];
  const ago = span >= 120_000 ? `−${Math.round(span / 60_000)} min` : `−${Math.round(span / 1000)} s`;
  svg.innerHTML = `
    <line class="grid" x1="0" x2="${W}" y1="${top}" y2="${top}"/>
    <line class="grid" x1="0" x2="${W}" y1="${(top + bottom) / 2}" y2="${(top + bottom) / 2}"/>
    <line class="axis" x1="0" x2="${W}" y1="${bottom}" y2="${bottom}"/>
    <text x="4" y="${top - 4}">${number.format(scale)}/s</text>
    <text x="4" y="${(top + bottom) / 2 - 4}">${number.format(scale / 2)}/s</text>
    <text x="4" y="${H - 3}">${ago}</text>
    <text x="${W - 4}" y="${H - 3}" text-anchor="end">now</text>
    <polyline class="admit" points="${line('admit')}"/>
    <polyline class="issue" points="${line('issue')}"/>`;
  $('#chart-now').textContent = last
    ? `· latest ${number.format(Math.round(last.admit))} admitted/s, ${number.format(Math.round(last.issue))} issued/s`
    : '';
}

function niceCeiling(value) {
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= value);
}

async function setRate(rate) {
  $('#err-issueRatePerSecond-patch').textContent = '';
  try {
    const event = await api('PATCH', `/admin/v1/coupons/${selectedId}`, { issueRatePerSecond: rate });
    render(event);
    $('#panel-message').textContent = `Issue rate set to ${number.format(event.issueRatePerSecond)}/s.`;
    loadEvents().catch(() => {});
  } catch (e) {
    const field = (e.problem.errors || []).find((err) => err.field === 'issueRatePerSecond');
    $('#err-issueRatePerSecond-patch').textContent = field ? field.message : e.message;
  }
}

function confirmClose() {
  const dialog = $('#confirm-dialog');
  $('#confirm-text').textContent =
    `Close event #${selectedId} now? Admission stops at once; requests already admitted are still issued.`;
  dialog.returnValue = '';
  dialog.showModal();
}

async function closeEvent() {
  try {
    const event = await api('POST', `/admin/v1/coupons/${selectedId}/close`);
    render(event);
    $('#panel-message').textContent = 'Event closed: admission stopped; admitted requests are still being issued.';
    loadEvents().catch(() => {});
  } catch (e) {
    $('#panel-message').textContent = `Could not close: ${e.message}`;
  }
}

// ---- create ---------------------------------------------------------------------------------------------------------

function localToIso(value) {
  return value ? new Date(value).toISOString().replace(/\.\d{3}Z$/, 'Z') : null;
}

function intOrNull(value) {
  return value === '' ? null : Number(value);
}

async function create(form) {
  document.querySelectorAll('#create-form .error').forEach((el) => { el.textContent = ''; });
  document.querySelectorAll('#create-form [aria-invalid]').forEach((el) => el.removeAttribute('aria-invalid'));
  const body = {
    name: form.name.value,
    totalQuantity: intOrNull(form.totalQuantity.value),
    issueRatePerSecond: intOrNull(form.issueRatePerSecond.value),
    openAt: localToIso(form.openAt.value) ?? new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    closeAt: localToIso(form.closeAt.value),
    validDays: intOrNull(form.validDays.value),
    queueing: form.queueing.value,
  };
  if (form.queueing.value === 'RANDOMIZED_START') {
    body.queueingWindowSeconds = intOrNull(form.queueingWindowSeconds.value);
  }
  if (form.benefitType.value) {
    const value = intOrNull(form.benefitValue.value);
    body.benefit = { type: form.benefitType.value, minOrderAmount: intOrNull(form.benefitMinOrder.value) };
    if (form.benefitType.value === 'PERCENT') {
      body.benefit.percent = value;
      body.benefit.maxDiscount = intOrNull(form.benefitMaxDiscount.value);
    } else {
      body.benefit.amount = value;
    }
  }
  Object.assign(body, gateFields(form));
  try {
    const event = await api('POST', '/admin/v1/coupons', body);
    form.reset();
    await loadEvents();
    select(event.id);
  } catch (e) {
    const errors = e.problem.errors || [];
    errors.forEach(({ field, message }) => {
      const slot = $(`#err-${field}`);
      if (slot) {
        slot.textContent = message;
        form.elements[field]?.setAttribute('aria-invalid', 'true');
      }
    });
    const unplaced = errors.filter(({ field }) => !$(`#err-${field}`));
    $('#create-error').textContent = errors.length === 0
      ? e.message
      : unplaced.map(({ field, message }) => `${field}: ${message}`).join('; ');
  }
}

// ---- the gate (issue 26): who an event is for, and its human check -----------------------------------------------

// "tier=GOLD,VIP; region=KR" -> {tier: ["GOLD", "VIP"], region: ["KR"]}
function parseClaims(text) {
  const claims = {};
  text.split(';').map((rule) => rule.trim()).filter(Boolean).forEach((rule) => {
    const [name, values = ''] = rule.split('=');
    claims[name.trim()] = values.split(',').map((value) => value.trim()).filter(Boolean);
  });
  return claims;
}

function gateFields(form) {
  const fields = {};
  const claims = parseClaims(form.eligibilityClaims.value);
  if (form.eligibilityList.checked || Object.keys(claims).length) {
    fields.eligibility = { list: form.eligibilityList.checked };
    if (Object.keys(claims).length) fields.eligibility.claims = claims;
    fields.eligibilityMode = form.eligibilityMode.value;
  }
  if (form.humanCheck.value) {
    fields.humanCheck = { type: form.humanCheck.value };
    if (form.humanCheck.value === 'PROOF_OF_WORK' && form.difficultyBits.value !== '') {
      fields.humanCheck.difficultyBits = Number(form.difficultyBits.value);
    }
  }
  return fields;
}

// The eligibility rules, the list's size and the refusals (or, in COUNT_ONLY mode, who would have been refused).
async function loadGate(id) {
  let gate;
  try {
    gate = await api('GET', `/admin/v1/coupons/${id}/eligibility`);
  } catch (e) {
    return;
  }
  if (id !== selectedId) return;
  const line = $('#panel-gate');
  const rules = [];
  if (gate.eligibility.list) rules.push(`the ${number.format(gate.listCount)} members on its list`);
  Object.entries(gate.eligibility.claims || {}).forEach(([name, values]) => rules.push(`${name} in ${values.join(', ')}`));
  const check = gate.humanCheck
    ? ` Human check: ${gate.humanCheck.type === 'PROOF_OF_WORK' ? `proof of work, ${gate.humanCheck.difficultyBits} bits` : 'siteverify'}; ${number.format(gate.refused.proof)} proofs refused.`
    : '';
  line.hidden = rules.length === 0 && !gate.humanCheck;
  if (rules.length === 0) {
    line.textContent = check.trim();
  } else if (gate.eligibilityMode === 'COUNT_ONLY') {
    line.textContent = `For ${rules.join(' and ')}: counted only. Would have refused ${number.format(gate.wouldRefuse.list)} by the list, `
      + `${number.format(gate.wouldRefuse.claims)} by the claims (distinct members, within 1%).${check}`;
  } else {
    line.textContent = `For ${rules.join(' and ')}: refused ${number.format(gate.refused.list)} by the list, `
      + `${number.format(gate.refused.claims)} by the claims.${check}`;
  }
}

async function uploadList() {
  const file = $('#list-file').files[0];
  $('#err-list').textContent = '';
  if (!file || selectedId === null) return;
  const response = await fetch(`/admin/v1/coupons/${selectedId}/eligible-members`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY)}`, 'Content-Type': 'text/plain', Accept: 'application/json' },
    body: file,
  });
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    const lines = (data?.errors || []).slice(0, 5).map(({ field }) => field).join(', ');
    $('#err-list').textContent = `${data?.detail || `HTTP ${response.status}`}${lines ? ` (${lines}…)` : ''}`;
    return;
  }
  $('#panel-message').textContent = `List uploaded: ${number.format(data.count)} members.`;
  $('#list-file').value = '';
}

// ---- wiring ---------------------------------------------------------------------------------------------------------

$('#sign-in-form').addEventListener('submit', (e) => {
  e.preventDefault();
  signIn($('#token').value);
});
$('#sign-out').addEventListener('click', () => signOut(''));
$('#create-form').addEventListener('submit', (e) => {
  e.preventDefault();
  create(e.target);
});
$('#rate-form').addEventListener('submit', (e) => {
  e.preventDefault();
  setRate(Number($('#rate-input').value));
});
$('#close').addEventListener('click', confirmClose);
$('#list-form').addEventListener('submit', (e) => {
  e.preventDefault();
  uploadList();
});
window.addEventListener('resize', () => { if (selectedId !== null) drawChart(); });
$('#confirm-dialog').addEventListener('close', () => {
  if ($('#confirm-dialog').returnValue === 'close') closeEvent();
});

if (sessionStorage.getItem(TOKEN_KEY)) signIn(sessionStorage.getItem(TOKEN_KEY));
else showSignIn();
