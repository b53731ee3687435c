/**
 * The article page every variant serves: a heading, a hero image, a few paragraphs, inline styles
 * and system fonts, the same bytes in every variant but for the banner's tags in <head>.
 */
import zlib from 'node:zlib';

export const HERO_PATH = '/assets/hero.png';
const HERO_WIDTH = 1200;
const HERO_HEIGHT = 800;

const PARAGRAPHS = [
  'The river barges that once carried grain past the old mill now carry tourists, and the mill itself has become the town’s busiest bakery. On a weekday morning the queue reaches the bridge before seven.',
  'The owners, two sisters who trained in Lyon, kept the original millstones and the beams blackened by a fire in 1911. They grind a share of their flour on site, from wheat grown within twenty kilometres, and say the difference is in the crust.',
  'Not everyone is pleased. Residents of the lane behind the mill complain of delivery vans and of the smell of bread at four in the morning, which one neighbour described to the council as “a pleasant form of torture”. The council has asked for a loading plan by spring.',
  'The sisters answer that the mill was built to work, and that it is working again. They have taken on six apprentices this year, and plan to open the upper floor as a small school for bakers from the region.',
  'For visitors, the advice is simple: come early, bring cash for the honesty box on the terrace, and do not leave without the walnut loaf, which sells out by nine.',
];

/** The page, with `bannerHead` (the banner's tags, as its vendor says to paste them) early in <head>. */
export function articlePage(bannerHead: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>The mill that bakes again — Riverside News</title>
${bannerHead}
<style>
body{margin:0;font:18px/1.6 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d1d1f;background:#fff}
header{background:#0b3d5c;color:#fff;padding:12px 20px;font-weight:600}
main{max-width:760px;margin:0 auto;padding:20px}
h1{font-size:2.1rem;line-height:1.2;margin:.4em 0}
.hero{display:block;width:100%;height:auto;aspect-ratio:${HERO_WIDTH}/${HERO_HEIGHT};border-radius:6px}
.meta{color:#555;font-size:.9rem}
</style>
</head><body>
<header>Riverside News</header>
<main>
<article>
<h1>The mill that bakes again: how two sisters brought bread back to the river</h1>
<p class="meta">By A. Reporter · 6 min read</p>
<img class="hero" src="${HERO_PATH}" width="${HERO_WIDTH}" height="${HERO_HEIGHT}" alt="The old mill at dawn" fetchpriority="high">
${PARAGRAPHS.map((p) => `<p>${p}</p>`).join('\n')}
</article>
</main>
</body></html>
`;
}

/** One PNG chunk: length, type, data, CRC-32 of type and data. */
function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(typed) >>> 0);
  return Buffer.concat([length, typed, crc]);
}

/**
 * The hero: a sky-to-river gradient with a one-level deterministic grain, so it compresses like a
 * photograph rather than a flat fill (about 150 kB, the weight of a real hero image). Each row is
 * stored with PNG's "Up" filter (its difference to the row above), as an encoder would choose here.
 */
export function heroPng(): Buffer {
  const width = HERO_WIDTH * 3;
  const pixels = Buffer.alloc((1 + width) * HERO_HEIGHT);
  let above = Buffer.alloc(width);
  let seed = 42;
  for (let y = 0; y < HERO_HEIGHT; y++) {
    const line = Buffer.alloc(width);
    const t = y / HERO_HEIGHT;
    for (let x = 0; x < HERO_WIDTH; x++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      const grain = seed >>> 31 ? ((seed >>> 24) & 1) * 2 - 1 : 0;
      line[x * 3] = Math.max(0, Math.min(255, 250 - 200 * t + grain + (x * 20) / HERO_WIDTH));
      line[x * 3 + 1] = Math.max(0, Math.min(255, 180 - 60 * t + grain));
      line[x * 3 + 2] = Math.max(0, Math.min(255, 120 + 100 * t + grain));
    }
    const row = y * (1 + width);
    pixels[row] = 2; // filter: Up
    for (let i = 0; i < width; i++) pixels[row + 1 + i] = (line[i] - above[i]) & 0xff;
    above = line;
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(HERO_WIDTH, 0);
  header.writeUInt32BE(HERO_HEIGHT, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(pixels, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
