/**
 * `GET /docs/ledger`: how an auditor verifies evidence by hand (docs/decisions/ledger.md). The worked
 * example's numbers were computed once with the service's own code and cross-checked with Python's hashlib
 * and `openssl pkeyutl`; the example key is the Ed25519 key whose seed is 32 bytes of 0x07.
 */
const EXAMPLE = {
  jcs0: '{"channelId":"ch_7Hq2LmN4pR8sT1vW3xY5zA","configVersion":3,"decisions":{"analytics":"granted","marketing":"denied","necessary":"granted"},"environment":"live","gpc":false,"id":"evt_0aB1cD2eF3gH4iJ5kL6mN7","ipPrefix":"203.0.113.0/24","language":"en","origin":"https://shop.example.com","policyVersion":"2024-05","recordedAt":"2026-11-21T10:00:00Z","source":"banner","subject":{"pseudonym":"psn_a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"},"type":"consent.recorded","userAgent":"Mozilla/5.0"}',
  leaf0: '179aff20f40273ebc4fef688d8bbf5d23cab826131ccd612fa83ea5cebf743b6',
  leaf1: '0e40b3106b95ce826b6a4db01fa1a9f5a1e93906ff144f5c4faa4ed0219595e2',
  leaf2: '4f52680b984a417a9faae6c749eeaa4242f7d662ad21a749dbf01e2012cb94e5',
  node01: '48553cf468fa0bcd0b47d7b271da827f148bbc45ebeec937cd1349519c54e3e7',
  root: '1b7d10b7bdcf854aa6b91a5b6e0fc32115650e4bfdc9acf41443075dcf3c7391',
  logId: 'log_3xY7kP2mQ9rT5vW1zB8cD4',
  timestamp: '2026-11-21T10:00:10Z',
  keyId: '_oEsEvOrTOY',
  publicKey: '6kpsY+KcUgq+9VB7Ey7F+ZVHdq6+vnuSQh7qaRRG0iw=',
  signature: 'Ch5VaBzR26Y1DLv/v3BKPebKvyGDEd3ulEo6qhaioNLKWggzFaDlFPD0QPuHDrkpPIVF3yjHFXC1g7RQ/8bsBA==',
};

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const code = (s: string) => `<pre><code>${escapeHtml(s)}</code></pre>`;

export function ledgerDocsHtml(): string {
  const e = EXAMPLE;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Verifying evidence · consent-service</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
pre{background:#f4f4f4;padding:.75rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}</style></head><body>
<h1>Verifying consent evidence by hand</h1>
<p>Every consent event the service records is a leaf of an append-only Merkle tree, one tree (a <em>log</em>,
<code>log_…</code>) per organization and environment, built exactly as Certificate Transparency's
(<a href="https://www.rfc-editor.org/rfc/rfc9162#section-2.1">RFC 9162 §2.1</a>). The service signs the tree's
root (a <em>tree head</em>) with Ed25519. With an event, its audit path, a signed tree head and the service's
public key you can check, without trusting the service or its database, that the event was recorded in that
tree and has not changed since. You need nothing but SHA-256 and an Ed25519 verifier.</p>

<h2>1. Get the public key</h2>
<p><code>GET /v1/public/ledger-keys</code> (no API key) lists <code>{keyId, algorithm: "Ed25519", publicKey}</code>:
the raw 32-byte public key in base64. Keys that signed older tree heads stay listed after a key change.
Obtain the key once, through a channel you trust, and keep it: a key fetched at the moment of verification proves less.</p>

<h2>2. Hash the event (the leaf hash)</h2>
<p>Take the event exactly as an export line or <code>GET /v1/evidence/:id</code> shows it, with the full
(unmasked) pseudonym, as in exports, and <strong>remove its <code>receipt</code> and <code>ledger</code> members</strong>.
Serialize it with the JSON Canonicalization Scheme (<a href="https://www.rfc-editor.org/rfc/rfc8785">RFC 8785</a>:
members sorted, no whitespace). The leaf hash is <code>SHA-256(0x00 ‖ those bytes)</code>, which is also the event's
<code>receipt.hash</code>.</p>
<p>Example, event <code>evt_0aB1cD2eF3gH4iJ5kL6mN7</code> in canonical form:</p>
${code(e.jcs0)}
${code(`python3 -c 'import hashlib,sys; print(hashlib.sha256(b"\\x00" + sys.stdin.buffer.read()).hexdigest())' < event.json
${e.leaf0}`)}
<p>(<code>event.json</code> holds the canonical bytes above, with no trailing newline.)</p>

<h2>3. Walk the audit path up to the root</h2>
<p>Inner nodes are <code>SHA-256(0x01 ‖ left ‖ right)</code>. The proof (from an export line's
<code>ledger</code> member, or <code>GET /v1/evidence/:id/proof</code>) gives the leaf's index, the tree size and the
<code>auditPath</code>, leaf side first. Apply RFC 9162 §2.1.3.2:</p>
${code(`fn = leafIndex; sn = treeSize - 1; r = leafHash
for p in auditPath:
    if sn == 0: fail
    if fn is odd or fn == sn:
        r = SHA-256(0x01 ‖ p ‖ r)
        if fn is even: while fn is even and fn != 0: fn >>= 1; sn >>= 1
    else:
        r = SHA-256(0x01 ‖ r ‖ p)
    fn >>= 1; sn >>= 1
valid if sn == 0 and r == rootHash`)}
<p>Worked example: a log of three events with leaf hashes</p>
${code(`leaf 0  ${e.leaf0}   (the event above)
leaf 1  ${e.leaf1}
leaf 2  ${e.leaf2}`)}
<p>The tree is <code>root = H(0x01 ‖ H(0x01 ‖ leaf0 ‖ leaf1) ‖ leaf2)</code>. For leaf 0 the audit path is
<code>[leaf1, leaf2]</code>:</p>
${code(`fn=0 sn=2  r = H(0x01 ‖ r ‖ leaf1)  = ${e.node01}
fn=0 sn=1  r = H(0x01 ‖ r ‖ leaf2)  = ${e.root}
fn=0 sn=0  sn is 0 and r equals rootHash: the event is in the tree`)}
${code(`python3 - <<'PY'
import hashlib
H = lambda *parts: hashlib.sha256(b"".join(parts)).digest()
leaf0 = bytes.fromhex("${e.leaf0}")
path = [bytes.fromhex("${e.leaf1}"), bytes.fromhex("${e.leaf2}")]
r = H(b"\\x01", H(b"\\x01", leaf0, path[0]), path[1])
print(r.hex())   # ${e.root}
PY`)}

<h2>4. Check the tree head's signature</h2>
<p>A tree head is <code>{logId, treeSize, rootHash, timestamp, keyId, signature}</code>. The signed bytes are the UTF-8 of
these five lines joined by <code>\\n</code>, with no trailing newline; the timestamp exactly as shown (RFC 3339 UTC, whole seconds):</p>
${code(`consent-service tree head v1
${e.logId}
3
${e.root}
${e.timestamp}`)}
<p>Example tree head, signed with the example key <code>${e.keyId}</code> (public key <code>${e.publicKey}</code>):</p>
${code(`{"logId":"${e.logId}","treeSize":3,"rootHash":"${e.root}",
 "timestamp":"${e.timestamp}","keyId":"${e.keyId}",
 "signature":"${e.signature}"}`)}
<p>With OpenSSL 3 (the DER prefix turns the raw key into a SubjectPublicKeyInfo):</p>
${code(`printf 'consent-service tree head v1\\n${e.logId}\\n3\\n${e.root}\\n${e.timestamp}' > head.txt
echo '${e.signature}' | base64 -d > sig.bin
( printf '\\x30\\x2a\\x30\\x05\\x06\\x03\\x2b\\x65\\x70\\x03\\x21\\x00'; echo '${e.publicKey}' | base64 -d ) > pub.der
openssl pkey -pubin -inform DER -in pub.der -out pub.pem
openssl pkeyutl -verify -pubin -inkey pub.pem -rawin -in head.txt -sigfile sig.bin
Signature Verified Successfully`)}

<h2>5. Check that the log only grew</h2>
<p>Two tree heads of the same log must be consistent: the older tree is a prefix of the newer one.
<code>GET /v1/evidence/consistency?first=N&amp;second=M</code> returns the RFC 9162 §2.1.4 proof; verify it with the
algorithm of §2.1.4.2. In the example, the proof from size 2 (root <code>${e.node01}</code>) to size 3 is
<code>[${e.leaf2}]</code>. Keep the tree heads you receive: a service that rewrote history could not produce a
consistency proof between a head you kept and a later one.</p>

<h2>6. A whole export, automatically</h2>
<p>An export made with <code>includeProofs: true</code> carries each line's <code>ledger {leafIndex, auditPath}</code>
and ends with <code>{"treeHead": …}</code>. <code>npx consent-service verify-export FILE --key PUBLIC_KEY_BASE64</code>
re-checks every line as above, offline, prints one line per failure and a summary, and exits non-zero on any failure.</p>

<h2>Good to know</h2>
<ul>
<li>Leaves are appended every few seconds (<code>LEDGER_SEAL_SECONDS</code>); until then a proof answers
<code>409 evidence_not_sealed</code>. Leaves are in <code>recordedAt</code>, id order, except that an event committed
after later-recorded events were sealed is appended when it is seen.</li>
<li>A retention purge deletes an event (or its content) but the ledger keeps its leaf hash, so older exports stay verifiable.</li>
</ul>
</body></html>`;
}
