import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** Debian's nginx (`apt-get install -y nginx-light`), where tests look for it. */
export const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';

/** Whether an nginx binary is there to run; tests that need one skip (and say so) without it. */
export function nginxAvailable(): boolean {
  try {
    execFileSync(NGINX, ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A free loopback port (taken, then released for nginx to listen on). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves once something accepts connections on the port (nginx is up), or rejects after `timeoutMs`. */
async function listening(port: number, child: ChildProcess, output: () => string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nginx did not listen on ${port}: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface RunningNginx {
  port: number;
  /** http://127.0.0.1:<port> */
  url: string;
  stop(): Promise<void>;
}

/**
 * A real nginx on loopback, in the foreground, with `serverBody` (directives of one `server`
 * block, such as the guide's location) inside a minimal configuration of its own temporary
 * directory. Stopped with SIGQUIT (a graceful stop) by its own pid.
 */
export async function startNginx(serverBody: string): Promise<RunningNginx> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-nginx-'));
  fs.chmodSync(dir, 0o755);
  const port = await freePort();
  const conf = path.join(dir, 'nginx.conf');
  fs.writeFileSync(
    conf,
    `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port};
${serverBody}
  }
}
`,
  );
  const child = spawn(NGINX, ['-p', dir, '-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d) => {
    output += d;
  });
  child.stderr?.on('data', (d) => {
    output += d;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await listening(port, child, () => `${output}${readLog(dir)}`);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) child.kill('SIGQUIT');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function readLog(dir: string): string {
  try {
    return fs.readFileSync(path.join(dir, 'error.log'), 'utf8');
  } catch {
    return '';
  }
}
