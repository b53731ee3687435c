/**
 * Baseline of scenario a: a bare node:http server answering every request with the bytes of the
 * service's `GET …/config` body (read from BODY_FILE), with its content type. Nothing else.
 */
import fs from 'node:fs';
import http from 'node:http';

const body = fs.readFileSync(process.env.BODY_FILE as string);
http
  .createServer((_request, response) => {
    response.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': body.length,
    });
    response.end(body);
  })
  .listen(Number(process.env.PORT), '127.0.0.1');
