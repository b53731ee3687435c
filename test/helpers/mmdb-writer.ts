import net from 'node:net';

/**
 * A minimal writer of MaxMind DB files (format 2.0, https://maxmind.github.io/MaxMind-DB/), so
 * tests build small GeoIP databases at run time: the real GeoLite2 files cannot be downloaded
 * here and npm has no writer. An IPv6 tree with 24-bit records; IPv4 networks live at ::a.b.c.d,
 * where readers look for them. Values: strings, whole numbers, booleans, arrays and maps.
 */

type Value = string | number | bigint | boolean | Value[] | { [key: string]: Value };

export interface MmdbNetwork {
  /** `192.0.2.0/24` or `2001:db8::/32`; networks must not overlap. */
  network: string;
  data: { [key: string]: Value };
}

interface TrieNode {
  children: [TrieNode | number | null, TrieNode | number | null];
}

const TYPE = { pointer: 1, string: 2, double: 3, bytes: 4, uint16: 5, uint32: 6, map: 7 } as const;
const EXTENDED = { uint64: 9, array: 11, boolean: 14 } as const;

export function writeMmdb(options: {
  databaseType: string;
  networks: MmdbNetwork[];
  description?: string;
}): Buffer {
  const data = new DataSection();
  const root: TrieNode = { children: [null, null] };
  for (const { network, data: record } of options.networks) {
    const [bits, prefixLength] = networkBits(network);
    const offset = data.add(record);
    let node = root;
    for (let depth = 0; depth < prefixLength - 1; depth++) {
      const bit = bits[depth];
      let child = node.children[bit];
      if (child === null) node.children[bit] = child = { children: [null, null] };
      if (typeof child === 'number') throw new Error(`${network} overlaps another network`);
      node = child;
    }
    node.children[bits[prefixLength - 1]] = offset;
  }

  // Number the nodes breadth first: the root is node 0, as readers expect.
  const nodes: TrieNode[] = [];
  const numbers = new Map<TrieNode, number>();
  for (let queue = [root]; queue.length > 0; ) {
    const next: TrieNode[] = [];
    for (const node of queue) {
      numbers.set(node, nodes.length);
      nodes.push(node);
      for (const child of node.children) if (child !== null && typeof child === 'object') next.push(child);
    }
    queue = next;
  }
  const nodeCount = nodes.length;
  const record = (child: TrieNode | number | null) =>
    child === null ? nodeCount : typeof child === 'number' ? nodeCount + 16 + child : numbers.get(child)!;
  const tree = Buffer.alloc(nodeCount * 6);
  nodes.forEach((node, i) => {
    tree.writeUIntBE(record(node.children[0]), i * 6, 3);
    tree.writeUIntBE(record(node.children[1]), i * 6 + 3, 3);
  });

  const metadata = encode({
    node_count: uint32(nodeCount),
    record_size: uint16(24),
    ip_version: uint16(6),
    database_type: options.databaseType,
    languages: ['en'],
    binary_format_major_version: uint16(2),
    binary_format_minor_version: uint16(0),
    build_epoch: BigInt(Math.floor(Date.now() / 1000)),
    description: { en: options.description ?? 'Test database' },
  });
  return Buffer.concat([
    tree,
    Buffer.alloc(16),
    data.bytes(),
    Buffer.from('abcdef4d61784d696e642e636f6d', 'hex'),
    metadata,
  ]);
}

class DataSection {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  add(value: Value): number {
    const offset = this.size;
    const bytes = encode(value);
    this.chunks.push(bytes);
    this.size += bytes.length;
    return offset;
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** Numbers are uint32 unless tagged: the metadata's fields have fixed types. */
const tagged = new WeakMap<object, 'uint16' | 'uint32'>();
function uint16(n: number): Value {
  const box = Object(n);
  tagged.set(box, 'uint16');
  return box;
}
function uint32(n: number): Value {
  const box = Object(n);
  tagged.set(box, 'uint32');
  return box;
}

function control(type: number, size: number): Buffer {
  let sizeBits: number;
  let sizeBytes: Buffer;
  if (size < 29) [sizeBits, sizeBytes] = [size, Buffer.alloc(0)];
  else if (size < 285) [sizeBits, sizeBytes] = [29, Buffer.from([size - 29])];
  else if (size < 65_821) [sizeBits, sizeBytes] = [30, uintBytes(size - 285, 2)];
  else [sizeBits, sizeBytes] = [31, uintBytes(size - 65_821, 3)];
  // Types above 7 are "extended": type bits 0, then a byte holding type - 7, then the size bytes.
  const head = type <= 7 ? Buffer.from([(type << 5) | sizeBits]) : Buffer.from([sizeBits, type - 7]);
  return Buffer.concat([head, sizeBytes]);
}

function uintBytes(value: number | bigint, length?: number): Buffer {
  let n = BigInt(value);
  const bytes: number[] = [];
  while (n > 0n) {
    bytes.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  while (length !== undefined && bytes.length < length) bytes.unshift(0);
  return Buffer.from(bytes);
}

function encode(value: Value): Buffer {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([control(TYPE.string, bytes.length), bytes]);
  }
  if (typeof value === 'boolean') return control(EXTENDED.boolean, value ? 1 : 0);
  if (typeof value === 'bigint') {
    const bytes = uintBytes(value);
    return Buffer.concat([control(EXTENDED.uint64, bytes.length), bytes]);
  }
  if (typeof value === 'number' || value instanceof Number) {
    const kind = (typeof value === 'object' && tagged.get(value)) || 'uint32';
    const bytes = uintBytes(Number(value));
    return Buffer.concat([control(TYPE[kind], bytes.length), bytes]);
  }
  if (Array.isArray(value)) {
    return Buffer.concat([control(EXTENDED.array, value.length), ...value.map(encode)]);
  }
  const entries = Object.entries(value);
  return Buffer.concat([
    control(TYPE.map, entries.length),
    ...entries.flatMap(([key, member]) => [encode(key), encode(member)]),
  ]);
}

/** The network's 128 address bits (IPv4 mapped to ::a.b.c.d) and its prefix length in that tree. */
function networkBits(network: string): [number[], number] {
  const [address, lengthText] = network.split('/');
  const family = net.isIP(address);
  if (family === 0) throw new Error(`not an address: ${network}`);
  const bytes =
    family === 4 ? [...new Array(12).fill(0), ...address.split('.').map(Number)] : ipv6Bytes(address);
  const prefixLength = Number(lengthText ?? (family === 4 ? 32 : 128)) + (family === 4 ? 96 : 0);
  const bits = bytes.flatMap((byte) => [7, 6, 5, 4, 3, 2, 1, 0].map((shift) => (byte >> shift) & 1));
  return [bits, prefixLength];
}

function ipv6Bytes(address: string): number[] {
  const [left, right = ''] = address.split('::');
  const head = left ? left.split(':') : [];
  const tail = right ? right.split(':') : [];
  const groups = [...head, ...new Array(8 - head.length - tail.length).fill('0'), ...tail];
  return groups.flatMap((group) => {
    const n = Number.parseInt(group, 16);
    return [n >> 8, n & 0xff];
  });
}
