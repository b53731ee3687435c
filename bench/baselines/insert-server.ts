/**
 * Baseline of scenario b: a bare node:http server that parses the same JSON body and does one
 * INSERT of the equivalent row into `bench_evidence` (same-shape-insert.ts), then answers 201 with
 * the id. Through a pg pool, or PGlite on --embedded.
 */
import http from 'node:http';
import { sameShapeInsert } from './same-shape-insert.ts';

const insert = await sameShapeInsert('bench_evidence');

http
  .createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', async () => {
      try {
        const id = await insert(JSON.parse(Buffer.concat(chunks).toString('utf8')), request.headers);
        const out = JSON.stringify({ id });
        response.writeHead(201, { 'content-type': 'application/json' });
        response.end(out);
      } catch (error) {
        response.writeHead(500);
        response.end(String(error));
      }
    });
  })
  .listen(Number(process.env.PORT), '127.0.0.1');
