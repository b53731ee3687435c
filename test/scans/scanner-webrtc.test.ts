import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGuardProxy } from '../../src/modules/scans/browser/guard-proxy.ts';
import { runBrowserScan } from '../../src/modules/scans/browser/index.ts';
import { launchScanBrowser } from '../../src/modules/scans/browser/launch.ts';
import { skipWith } from '../helpers/skip.ts';
import { browserSkipReason, CHROMIUM_PATH } from '../sdk/harness.ts';
import { type FixtureSite, startFixtureSite } from './fixture-site.ts';

/**
 * WebRTC's STUN and TURN traffic is UDP: it never goes through the guard proxy, so a scanned page
 * could use it to reach any address (an internal one included) around the address rules. A scan
 * must send none. The "internal" STUN/TURN server here is a UDP socket on 127.0.0.1 that counts
 * what arrives. Each frame reports what it could do to /report on the site.
 */

/** In the page: every way a script reaches a peer connection, each offered the UDP server. */
function udpScript(port: number): string {
  return `
function report(what) { fetch('/report?' + encodeURIComponent(what)).catch(() => {}); }
async function gather(label, win) {
  try {
    const Pc = win.RTCPeerConnection || win.webkitRTCPeerConnection;
    if (typeof Pc !== 'function') return report(label + ': no RTCPeerConnection');
    const pc = new Pc({ iceServers: [
      { urls: 'stun:127.0.0.1:${port}' },
      { urls: 'turn:127.0.0.1:${port}?transport=udp', username: 'scan', credential: 'scan' },
    ] });
    pc.createDataChannel('leak');
    await pc.setLocalDescription(await pc.createOffer());
    report(label + ': gathering');
  } catch (error) {
    report(label + ': ' + error);
  }
}
gather(location.host + ' window', window);
gather(location.host + ' webkit', { RTCPeerConnection: window.webkitRTCPeerConnection });
// A fresh same-origin frame's globals, taken before anything could run in it.
const blank = document.createElement('iframe');
document.documentElement.append(blank);
gather(location.host + ' about:blank frame', blank.contentWindow);
// WebTransport is HTTP/3, QUIC over UDP; in a worker no script of ours runs first.
const transport = "try { new WebTransport('https://127.0.0.1:${port}/').ready.catch(() => {}); } catch {}";
try { eval(transport); } catch {}
new Worker(URL.createObjectURL(new Blob([transport], { type: 'text/javascript' })));
`;
}

describe.skipIf(skipWith(browserSkipReason))('WebRTC and other UDP in a scanned page', () => {
  let udp: dgram.Socket;
  let port = 0;
  const datagrams: string[] = [];
  let site: FixtureSite;

  beforeAll(async () => {
    udp = dgram.createSocket('udp4');
    udp.on('message', (message, from) => datagrams.push(`${from.address}:${from.port} ${message.length} B`));
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    port = (udp.address() as AddressInfo).port;
    site = await startFixtureSite({
      // The frame is on another site (localhost, not 127.0.0.1): its own renderer under site isolation.
      page: ({ origin }) => `<!doctype html><html lang="en"><title>WebRTC</title>
<script>${udpScript(port)}</script>
<iframe src="${origin.replace('127.0.0.1', 'localhost')}/frame" title="another site"></iframe>`,
      routes: {
        '/frame': (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end(`<!doctype html><title>frame</title><script>${udpScript(port)}</script>`);
        },
        '/report': (_req, res) => {
          res.writeHead(204).end();
        },
      },
    });
  });
  afterAll(async () => {
    await site?.close();
    udp?.close();
  });
  beforeEach(() => {
    datagrams.length = 0;
  });

  /** ICE gathering keeps retrying an unanswered STUN server for a few seconds: wait for stragglers. */
  const stragglers = () => new Promise((resolve) => setTimeout(resolve, 1500));

  it('sends no datagram to the STUN/TURN servers the page names, in any phase or frame', async () => {
    site.siteHits.length = 0;
    const pages = await runBrowserScan({
      urls: [`${site.origin}/`],
      chromiumPath: CHROMIUM_PATH,
      allowAddress: (ip) => ip === '127.0.0.1',
      pageTimeoutMs: 15_000,
      scanTimeoutMs: 110_000,
    });
    await stragglers();
    console.log(`scan of the WebRTC page: ${datagrams.length} datagrams reached the UDP server`);
    expect(pages).toHaveLength(1);
    expect(datagrams).toEqual([]);
    // Every frame, in every phase, found no peer connection to start.
    const reports = site.siteHits
      .filter((hit) => hit.startsWith('/report?'))
      .map((hit) => decodeURIComponent(hit.slice('/report?'.length)));
    const siteHost = new URL(site.origin).host;
    const frameHost = siteHost.replace('127.0.0.1', 'localhost');
    for (const host of [siteHost, frameHost]) {
      for (const label of ['window', 'webkit', 'about:blank frame']) {
        expect(reports.filter((r) => r === `${host} ${label}: no RTCPeerConnection`)).toHaveLength(3);
      }
    }
    expect(reports.filter((r) => !r.endsWith('no RTCPeerConnection'))).toEqual([]);
  }, 120_000);

  it('keeps ICE off UDP by the launch flags alone, where a script still has the constructor', async () => {
    const proxy = await startGuardProxy({ allowAddress: (ip) => ip === '127.0.0.1' });
    const browser = await launchScanBrowser(CHROMIUM_PATH, proxy.url, 30_000);
    try {
      // A profile without the scan's page guards: RTCPeerConnection is there.
      const context = await browser.browser.newContext();
      const page = await context.newPage();
      await page.goto(`${site.origin}/`);
      await stragglers();
      expect(
        await page.evaluate(() => typeof (globalThis as { RTCPeerConnection?: unknown }).RTCPeerConnection),
      ).toBe('function');
      console.log(`unguarded page: ${datagrams.length} datagrams reached the UDP server`);
      expect(datagrams).toEqual([]);
    } finally {
      await browser.close();
      await proxy.close();
    }
  }, 60_000);
});

// store-independent: the scan browser against a fixture site, no service
