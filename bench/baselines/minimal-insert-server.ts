/**
 * The floor of scenario b: a bare node:http server doing one durable INSERT of a
 * minimal row (`bench_minimal`: an id and the body's subject, a primary key and nothing else) per
 * request, through a pool of the service's size, answering 201 with the id. What PostgreSQL and
 * node:http cost with nothing of the service's work: no schema, no index but the key, no batching.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { openSql } from './sql.ts';

const sql = await openSql();
await sql('drop table if exists bench_minimal');
await sql('create table bench_minimal (id text primary key, subject text not null)');

http
  .createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', async () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const id = randomUUID();
        await sql('insert into bench_minimal (id, subject) values ($1, $2)', [id, String(body.subjectId)]);
        response.writeHead(201, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ id }));
      } catch (error) {
        response.writeHead(500);
        response.end(String(error));
      }
    });
  })
  .listen(Number(process.env.PORT), '127.0.0.1');
