/**
 * The visitor's receipt page (docs/receipts.md): a shell whose one inline script (allowed by a nonce)
 * fetches the same receipt as JSON and the ledger's published keys from this service, shows the
 * receipt in plain language, and checks it with WebCrypto: the service's Ed25519 signature over the
 * receipt's content, the RFC 9162 inclusion proof from the leaf hash to the tree head's root, and the
 * Ed25519 signature of the tree head. Text is only ever set with textContent.
 */
const SCRIPT = String.raw`
const $ = (id) => document.getElementById(id);
const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const unhex = (text) => new Uint8Array((text.match(/../g) || []).map((h) => parseInt(h, 16)));
const unbase64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const utf8 = (text) => new TextEncoder().encode(text);
const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
};
const sha256 = async (...parts) => new Uint8Array(await crypto.subtle.digest('SHA-256', concat(...parts)));
// RFC 8785 for what a receipt holds (strings, integers, booleans, null, arrays, objects).
const jcs = (v) => v === null || typeof v !== 'object' ? JSON.stringify(v)
  : Array.isArray(v) ? '[' + v.map(jcs).join(',') + ']'
  : '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + jcs(v[k])).join(',') + '}';
// RFC 9162 §2.1.3.2: the root a leaf and its audit path lead to.
async function rootFromPath(index, size, leaf, path) {
  if (index >= size) return null;
  let fn = index, sn = size - 1, r = leaf;
  for (const p of path) {
    if (sn === 0) return null;
    if (fn % 2 === 1 || fn === sn) {
      r = await sha256(new Uint8Array([1]), p, r);
      while (fn % 2 === 0 && fn !== 0) { fn = Math.floor(fn / 2); sn = Math.floor(sn / 2); }
    } else {
      r = await sha256(new Uint8Array([1]), r, p);
    }
    fn = Math.floor(fn / 2); sn = Math.floor(sn / 2);
  }
  return sn === 0 ? r : null;
}
async function ed25519(publicKey, signature, message) {
  const key = await crypto.subtle.importKey('raw', publicKey, { name: 'Ed25519' }, false, ['verify']);
  return crypto.subtle.verify({ name: 'Ed25519' }, key, signature, message);
}
function row(list, term, value) {
  const dt = document.createElement('dt'); dt.textContent = term;
  const dd = document.createElement('dd'); dd.textContent = value;
  list.append(dt, dd);
}
function check(text, ok) {
  const li = document.createElement('li');
  li.textContent = (ok ? '✓ ' : '✗ ') + text;
  $('checks').append(li);
  return ok;
}
function say(verdict, detail, state) {
  $('verdict').textContent = verdict;
  $('verdict-detail').textContent = detail;
  $('status').dataset.state = state;
}
function show(r) {
  const facts = $('facts');
  row(facts, 'Recorded by', r.controller.name);
  row(facts, 'Recorded at', new Date(r.recordedAt).toUTCString());
  row(facts, 'Privacy policy', (r.controller.privacyPolicyUrl || 'not given') + (r.controller.privacyPolicyVersion ? ' (version ' + r.controller.privacyPolicyVersion + ')' : ''));
  row(facts, 'Notice version you answered', String(r.configVersion));
  row(facts, 'Your region', (r.region || 'unknown') + (r.regime ? ' (' + r.regime + ')' : ''));
  row(facts, 'Language', r.language || 'not given');
  row(facts, 'Receipt number', r.eventId);
  const body = $('purposes');
  for (const p of r.purposes) {
    const tr = document.createElement('tr');
    for (const text of [p.name, p.legalBasis || 'not given', p.decision === 'granted' ? 'Allowed' : 'Refused']) {
      const td = document.createElement('td'); td.textContent = text; tr.append(td);
    }
    body.append(tr);
  }
}
async function main() {
  let r, keys;
  try {
    const [a, b] = await Promise.all([
      fetch(location.href, { headers: { Accept: 'application/json' }, cache: 'no-store' }),
      fetch('/v1/public/ledger-keys', { headers: { Accept: 'application/json' } }),
    ]);
    if (!a.ok) return say('Receipt not found', 'This address is not (or no longer) a receipt.', 'failed');
    r = (await a.json()).data;
    keys = b.ok ? (await b.json()).data : [];
  } catch (error) {
    return say('Could not load the receipt', String(error), 'failed');
  }
  show(r);
  const keyOf = (id) => keys.find((k) => k.keyId === id);
  const stated = Object.assign({}, r); delete stated.proof; delete stated.signature;
  const statementKey = keyOf(r.signature.keyId);
  const statementOk = !!statementKey && await ed25519(unbase64(statementKey.publicKey),
    unbase64(r.signature.value), utf8('consent-service receipt v1\n' + jcs(stated))).catch(() => false);
  if (!check('The service signed exactly what this receipt shows (key ' + r.signature.keyId + ')', statementOk)) {
    return say('Not verified', 'The content of this receipt does not match the service’s signature: something on it was changed.', 'failed');
  }
  if (!r.proof) {
    return say('Not yet sealed', 'Your decision is recorded but not yet sealed into the evidence log. Check again later (usually a few seconds).', 'pending');
  }
  const p = r.proof, head = p.treeHead;
  const leaf = unhex(r.leafHash);
  const root = await rootFromPath(p.leafIndex, p.treeSize, leaf, p.auditPath.map(unhex));
  if (!check('The record (leaf ' + p.leafIndex + ') is in the log at size ' + p.treeSize, !!root && hex(root) === head.rootHash && p.treeSize === head.treeSize && p.logId === head.logId)) {
    return say('Not verified', 'The inclusion proof does not lead from this record to the signed tree head’s root.', 'failed');
  }
  const headKey = keyOf(head.keyId);
  $('key').textContent = headKey ? head.keyId + ' = ' + headKey.publicKey + ' (from ' + location.origin + '/v1/public/ledger-keys)' : head.keyId + ' (not published)';
  const message = 'consent-service tree head v1\n' + head.logId + '\n' + head.treeSize + '\n' + head.rootHash + '\n' + head.timestamp;
  const headOk = !!headKey && await ed25519(unbase64(headKey.publicKey), unbase64(head.signature), utf8(message)).catch(() => false);
  if (!check('The log’s tree head of ' + head.timestamp + ' carries a valid Ed25519 signature', headOk)) {
    return say('Not verified', headKey ? 'The tree head’s signature does not verify with the published key.' : 'The key that signed the tree head is not published.', 'failed');
  }
  say('Verified', 'This receipt was signed by the service, and your decision is sealed in its evidence log.', 'verified');
}
main();
`;

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a;background:#fff}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%}th,td{text-align:left;border-bottom:1px solid #767676;padding:.35rem .5rem}
#status{border:2px solid #767676;border-radius:.5rem;padding:.75rem 1rem}
#status[data-state=verified]{border-color:#1b6e20}#status[data-state=failed]{border-color:#b00020}
#verdict{font-size:1.25rem;font-weight:700;margin:0}ul{padding-left:1.2rem}code,#key{overflow-wrap:anywhere}
`;

export function receiptPage(nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Your consent receipt</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<main>
<h1>Your consent receipt</h1>
<p>This page shows what the site recorded when you made your privacy choices, and checks in your browser that the record is sealed, unchanged, in the service’s tamper-evident evidence log. It never shows who you are: no identifier of yours is on it.</p>
<section id="status" data-state="checking" aria-labelledby="verdict">
<p id="verdict" role="status" aria-live="polite">Checking…</p>
<p id="verdict-detail"></p>
<ul id="checks"></ul>
<noscript><p>Checking needs JavaScript. The receipt as data is at this address with the header Accept: application/json.</p></noscript>
</section>
<h2>What was recorded</h2>
<dl id="facts"></dl>
<h2>Your choices</h2>
<table>
<caption>Each purpose, its legal basis and your choice</caption>
<thead><tr><th scope="col">Purpose</th><th scope="col">Legal basis</th><th scope="col">Your choice</th></tr></thead>
<tbody id="purposes"></tbody>
</table>
<h2>How this was checked</h2>
<p>Signature keys come from this service’s published ledger keys. Tree head key used: <span id="key">none yet</span>. Anyone can repeat the check with <code>npx consent-service verify-receipt</code> and a key they obtained independently.</p>
</main>
<script nonce="${nonce}">${SCRIPT}</script>
</body>
</html>`;
}
