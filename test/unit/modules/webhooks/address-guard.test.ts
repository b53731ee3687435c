import { describe, expect, it } from 'vitest';
import {
  type Lookup,
  refusedAddressReason,
  vetDestination,
} from '../../../../src/platform/http/address-guard.ts';

const refused: string[] = [
  '127.0.0.1',
  '127.255.255.254',
  '0.0.0.0',
  '10.1.2.3',
  '172.16.0.1',
  '172.31.255.255',
  '192.168.1.1',
  '100.64.0.1',
  '100.127.255.255',
  '169.254.169.254',
  '169.254.0.1',
  '224.0.0.1',
  '239.255.255.250',
  '255.255.255.255',
  '240.0.0.1',
  '198.18.0.1',
  '::',
  '::1',
  'fe80::1',
  'fe80::1%eth0',
  'fc00::1',
  'fd00:ec2::254',
  'ff02::1',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:10.0.0.1',
  '::ffff:169.254.169.254',
  '64:ff9b::a9fe:a9fe',
  '2002:a00:1::',
  // Mapped and translated forms are refused whatever they embed (never on the wire).
  '::ffff:8.8.8.8',
  '::ffff:0:127.0.0.1',
  '::ffff:0:808:808',
  // Local-use NAT64 reaches whatever the operator's translator serves.
  '64:ff9b:1::808:808',
  '64:ff9b:1::a00:1',
  '64:ff9b::10.0.0.1',
  '::127.0.0.1', // IPv4-compatible
  '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
  '2001:2::1', // benchmarking
  '3fff::1', // documentation
  '::127.0.0.1',
  // Reserved space outside 2000::/3: ::/8 holds loopback-reaching forms no list names one by one.
  '::ffff:0:0:7f00:1',
  '0:0:0:ffff:0:0:7f00:1',
  '0:0:1:ffff::7f00:1',
  '1::1',
  '4000::1',
  'e000::1',
  'fe00::1',
];

const allowed: string[] = [
  '1.1.1.1',
  '8.8.8.8',
  '93.184.215.14',
  '172.32.0.1',
  '100.128.0.1',
  '192.169.0.1',
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '64:ff9b::808:808', // well-known NAT64 of a public address (DNS64 on IPv6-only networks)
  '2002:808:808::1', // 6to4 of a public address
];

describe('refusedAddressReason', () => {
  it.each(refused)('refuses %s', (address) => {
    expect(refusedAddressReason(address)).not.toBeNull();
  });
  it.each(allowed)('allows %s', (address) => {
    expect(refusedAddressReason(address)).toBeNull();
  });
});

/** A resolver for made-up names, so no test depends on real DNS. */
const fakeDns: Lookup = async (host) => {
  const table: Record<string, string[]> = {
    'public.example': ['93.184.215.14'],
    'mixed.example': ['93.184.215.14', '10.0.0.7'],
    'v6private.example': ['fd12::1'],
    localhost: ['127.0.0.1', '::1'],
  };
  const found = table[host];
  if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

const vet = (url: string, environment: 'test' | 'live' = 'test', allowPrivate = false) =>
  vetDestination(url, { environment, allowPrivate, lookup: fakeDns });

describe('vetDestination', () => {
  it.each([
    ['http://2130706433/', 'decimal IPv4 literal'],
    ['http://0x7f000001/', 'hex IPv4 literal'],
    ['http://0177.0.0.1/', 'octal IPv4 literal'],
    ['http://0x7f.1/', 'short hex form'],
    ['http://127.1/', 'short dotted form'],
    ['http://[::1]:8080/', 'IPv6 loopback'],
    ['http://[::ffff:127.0.0.1]/', 'IPv4-mapped IPv6 loopback'],
    ['http://[0:0:0:0:0:ffff:a9fe:a9fe]/', 'mapped metadata address'],
    ['http://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['http://localhost:3000/', 'localhost'],
    ['http://mixed.example/', 'a name with one private address among public ones'],
    ['http://v6private.example/', 'a name resolving to unique-local IPv6'],
    ['http://unknown.example/', 'a name that does not resolve'],
    ['http://user:pw@public.example/', 'credentials in the URL'],
    ['gopher://public.example/', 'another scheme'],
    ['not a url', 'not a URL'],
  ])('refuses %s (%s)', async (url) => {
    await expect(vet(url)).rejects.toThrow();
  });

  it('accepts a public name and returns the addresses to pin the connection to', async () => {
    const vetted = await vet('https://public.example/hook?x=1');
    expect(vetted.addresses).toEqual(['93.184.215.14']);
    expect(vetted.url.href).toBe('https://public.example/hook?x=1');
  });

  it('live destinations need https; allowPrivate never applies to them', async () => {
    await expect(vet('http://public.example/', 'live')).rejects.toThrow(/https/);
    await expect(vet('https://127.0.0.1/', 'live', true)).rejects.toThrow(/non-public/);
    await expect(vet('https://public.example/', 'live')).resolves.toBeTruthy();
  });

  it('gives up on a host whose name server never answers, as a host that does not resolve', async () => {
    const silent: Lookup = () => new Promise(() => {});
    const started = performance.now();
    const vetting = vetDestination('https://slow-dns.example/hook', {
      environment: 'test',
      allowPrivate: false,
      lookup: silent,
      lookupTimeoutMs: 200,
    });
    await expect(vetting).rejects.toThrow('the host could not be resolved (ETIMEOUT)');
    expect(performance.now() - started).toBeLessThan(4000);
  }, 5000);

  it('allowPrivate lets test destinations reach private addresses', async () => {
    await expect(vet('http://127.0.0.1:9999/', 'test', true)).resolves.toMatchObject({
      addresses: ['127.0.0.1'],
    });
    await expect(vet('http://localhost/', 'test', true)).resolves.toBeTruthy();
  });
});

// store-independent: the webhook address guard, no database
